-- expire.lua: SuspensionStore.Expire: removes the checkpoints expired at
-- ARGV[2] and returns them, so that of concurrent expirers each
-- checkpoint is reported by one. KEYS[1] the suspended set, KEYS[2] the
-- expiry index (members: expiry time, 21 digits, ':', run id, scored 0:
-- those up to ARGV[2] sort before ARGV[2] .. ';'), KEYS[3] this expiry's
-- "expired" list, kept ARGV[5] milliseconds so that this expiry, sent
-- again by go-redis after its reply was lost, reports what it removed.
-- ARGV[1] the key prefix, ARGV[2] now (21 digits), ARGV[3] the format this
-- release reads: a record of another format is left for the release that
-- reads it; ARGV[4] the nonce of this expiry (named in KEYS[3]).
-- Reply: {'ok', record, record, ...}.
if redis.call('EXISTS', KEYS[3]) == 1 then
  local out = {'ok'}
  for _, r in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
    table.insert(out, r)
  end
  return out
end
local out = {'ok'}
for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], '-', '(' .. ARGV[2] .. ';')) do
  local id = string.sub(m, 23)
  local key = ARGV[1] .. 'checkpoint:' .. id
  local cur = redis.call('HMGET', key, 'format', 'record')
  if not cur[2] then
    redis.call('ZREM', KEYS[2], m)
  elseif cur[1] == ARGV[3] then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], m)
    table.insert(out, cur[2])
  end
end
if #out > 1 then
  redis.call('RPUSH', KEYS[3], unpack(out, 2))
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
return out
