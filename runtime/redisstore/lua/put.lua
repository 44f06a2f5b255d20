-- put.lua: SuspensionStore.Put, replacing any checkpoint of the run.
-- KEYS[1] the run's hash {format, record, expires}, KEYS[2] the sorted set
-- of suspended run ids (scored by suspension time), KEYS[3] the expiry
-- index (members: expiry time, ':', run id, scored 0).
-- ARGV[1] the run id, ARGV[2] the record (runtime.MarshalCheckpoint),
-- ARGV[3] its format, ARGV[4] the suspension time in Unix milliseconds,
-- ARGV[5] the expiry time (21 digits, see timekey.go), '' for never.
-- Reply: {'ok'}.
local old = redis.call('HGET', KEYS[1], 'expires')
if old and old ~= '' then
  redis.call('ZREM', KEYS[3], old .. ':' .. ARGV[1])
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'format', ARGV[3], 'record', ARGV[2], 'expires', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[3], 0, ARGV[5] .. ':' .. ARGV[1])
end
return {'ok'}
