-- accept.lua: AcceptCall, one round trip on the call hot path. ARGV[4]
-- call id, [5] toolset, [6] tool, [7] payload digest, [8] token, [9] the
-- call's JSON (the fields the store never changes), [10] accepted-at time
-- ('' stamps now), [11] the lease to assign it to ('' for none), [12] a
-- nonce of this AcceptCall, [13] the call's owner ('' for the empty
-- scope, which records written before calls were scoped are in).
-- Reply: {'ok', created (1 or 0), record}, or {'call_id_conflict',
-- toolset, tool, digest of the record}, or {'call_id_conflict', 'owner'}
-- when another owner's record has the id, or {'unknown_toolset'}, or
-- {'admission_conflict', active revision}.
local id, toolset, tool, digest, token, owner = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[13] or ''
local key = call_key(id)

-- Idempotent on the id: the same call gets its record, whatever its state.
-- The record keeps the nonce of the AcceptCall that wrote it: go-redis
-- runs a command again when its connection broke before the reply, and
-- that run must answer created too.
local old = redis.call('HMGET', key, 'toolset', 'tool', 'digest', 'nonce', 'owner')
if old[1] then
  if (old[5] or '') ~= owner then
    return {'call_id_conflict', 'owner'}
  end
  if old[1] ~= toolset or old[2] ~= tool or old[3] ~= digest then
    return {'call_id_conflict', old[1], old[2], old[3]}
  end
  local created = 0
  if old[4] == ARGV[12] then
    created = 1
  end
  return {'ok', created, redis.call('HGETALL', key)}
end

-- Admission reads the small token record, never the registration.
local active = meta(K_TOKENS, toolset)
if not active then
  return {'unknown_toolset'}
end
if active.token ~= token then
  return {'admission_conflict', active.revision}
end

local accepted = ARGV[10]
if accepted == '' then
  accepted = now()
end
redis.call('HSET', key, 'rec', ARGV[9], 'toolset', toolset, 'tool', tool, 'digest', digest,
  'token', token, 'state', 'accepted', 'accepted', accepted, 'nonce', ARGV[12])
if owner ~= '' then
  redis.call('HSET', key, 'owner', owner)
end
local assign = ARGV[11]
local l = assign ~= '' and lease_get(assign)
if l and routable(l, toolset, token) then
  -- Published to the lease in the same write.
  redis.call('HSET', key, 'state', 'published', 'lease', assign, 'published', now())
  redis.call('SADD', published_key(assign), id)
else
  redis.call('SADD', accepted_key(toolset), id)
end
redis.call('ZADD', K_UNSETTLED, 0, accepted .. id)
return {'ok', 1, redis.call('HGETALL', key)}
