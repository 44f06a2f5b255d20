-- take.lua: SuspensionStore.Take, get and delete in one step: of
-- concurrent takers exactly one gets the record. Expiry is the Go side's
-- to judge (the caller's now): an expired record is removed all the same.
-- KEYS[1] the run's hash, KEYS[2] the suspended set, KEYS[3] the expiry
-- index, KEYS[4] the run's "taken" hash {nonce, record}, kept ARGV[4]
-- milliseconds so that this take, sent again by go-redis after its reply
-- was lost, gets the record it took.
-- ARGV[1] the run id, ARGV[2] the format this release reads, ARGV[3] the
-- nonce of this take, ARGV[4] how long the taken hash is kept (ms).
-- Reply: {'ok', record}; {'none'}; {'format', stored format} for a record
-- another release wrote (left in place).
local prev = redis.call('HMGET', KEYS[4], 'nonce', 'record')
if prev[1] == ARGV[3] then
  return {'ok', prev[2]}
end
local cur = redis.call('HMGET', KEYS[1], 'format', 'record', 'expires')
if not cur[2] then
  return {'none'}
end
if cur[1] ~= ARGV[2] then
  return {'format', cur[1] or ''}
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if cur[3] and cur[3] ~= '' then
  redis.call('ZREM', KEYS[3], cur[3] .. ':' .. ARGV[1])
end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], 'nonce', ARGV[3], 'record', cur[2])
redis.call('PEXPIRE', KEYS[4], ARGV[4])
return {'ok', cur[2]}
