-- save.lua: SessionStore.Save, compare and swap. KEYS[1] the session's
-- hash {format, version, record, nonce}. ARGV[1] the version the caller
-- loaded, ARGV[2] the new version (ARGV[1]+1, computed in Go: versions are
-- decimal strings, compared as such, never Lua numbers), ARGV[3] the
-- record (runtime.MarshalSession), ARGV[4] its format, ARGV[5] the nonce
-- of this save.
-- Reply: {'ok'}; {'conflict', stored version}; {'format', stored format}
-- for a session another release wrote (left as it is).
local cur = redis.call('HMGET', KEYS[1], 'format', 'version', 'nonce')
if not cur[2] then
  cur[2] = '0'
elseif cur[1] ~= ARGV[4] then
  return {'format', cur[1] or ''}
end
if cur[2] ~= ARGV[1] then
  -- The same save sent again after its reply was lost: it succeeded.
  if cur[2] == ARGV[2] and cur[3] == ARGV[5] then
    return {'ok'}
  end
  return {'conflict', cur[2]}
end
redis.call('HSET', KEYS[1], 'format', ARGV[4], 'version', ARGV[2], 'record', ARGV[3], 'nonce', ARGV[5])
return {'ok'}
