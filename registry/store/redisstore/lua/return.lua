-- return.lua: ReturnCall. ARGV[4] call id, [5] lease id. A call published
-- to the lease is accepted again; any other is returned as it is.
-- Reply: {'ok', record}, or {'unknown_call'}.
local id, lease = ARGV[4], ARGV[5]
local c = call_get(id)
if not c then
  return {'unknown_call'}
end
if c.state ~= 'published' or c.lease ~= lease then
  return record(id)
end
redis.call('SREM', published_key(lease), id)
redis.call('HDEL', call_key(id), 'lease', 'published', 'publish_nonce')
redis.call('HSET', call_key(id), 'state', 'accepted')
redis.call('SADD', accepted_key(c.toolset), id)
return record(id)
