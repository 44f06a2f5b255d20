-- expireruns.lua: RunLog.Expire: removes the runs not running whose
-- latest event is before ARGV[2], with their events and index entries,
-- and returns their info, so that of concurrent expirers each run is
-- reported by one.
-- KEYS[1] the runs index (members: updated time, 21 digits, ':', run id,
-- scored 0: those before ARGV[2] sort before '(' .. ARGV[2]), KEYS[2] the
-- set of running run ids, KEYS[3] this expiry's "expiredruns" list, kept
-- ARGV[5] milliseconds so that this expiry, sent again by go-redis after
-- its reply was lost, reports what it removed.
-- ARGV[1] the key prefix (a run's hash is prefix .. 'run:' .. id, its
-- stream prefix .. 'log:' .. id, its session's set prefix ..
-- 'sessionruns:' .. session), ARGV[2] the cut (21 digits), ARGV[3] the
-- format this release reads: a run of another format is left for the
-- release that reads it, ARGV[4] the nonce of this expiry (named in
-- KEYS[3]), ARGV[6] the running status.
-- Reply: {'ok', then ten a run: run id, format, status, owner, last,
-- session, agent, parent, started, updated}.
local out = {'ok'}
if redis.call('EXISTS', KEYS[3]) == 1 then
  for _, v in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
    table.insert(out, v)
  end
  return out
end
for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[2])) do
  local id = string.sub(m, 23)
  local key = ARGV[1] .. 'run:' .. id
  local f = redis.call('HMGET', key, 'format', 'status', 'owner', 'last', 'session', 'agent', 'parent', 'started', 'updated')
  if not f[4] then
    redis.call('ZREM', KEYS[1], m) -- an index entry without its run
  elseif f[1] == ARGV[3] and f[2] ~= ARGV[6] and redis.call('SISMEMBER', KEYS[2], id) == 0 then
    redis.call('DEL', key, ARGV[1] .. 'log:' .. id)
    redis.call('ZREM', KEYS[1], m)
    if f[5] and f[5] ~= '' then
      redis.call('SREM', ARGV[1] .. 'sessionruns:' .. f[5], id)
    end
    table.insert(out, id)
    for j = 1, 9 do
      table.insert(out, f[j] or '')
    end
  end
end
-- RPUSH in batches: unpack of a long list would overflow Lua's stack.
for i = 2, #out, 1000 do
  redis.call('RPUSH', KEYS[3], unpack(out, i, math.min(i + 999, #out)))
end
if #out > 1 then
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
return out
