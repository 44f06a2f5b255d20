-- publish.lua: PublishCall. ARGV[4] call id, [5] lease id, [6] a nonce
-- of this PublishCall. Reply: {'ok', record, published (1: this
-- PublishCall published the call, 0: it did not)}, or {'unknown_call'},
-- or {'lease_gone'}. A call is published once: offered again, to any
-- lease, it is returned as it is.
local id, lease, nonce = ARGV[4], ARGV[5], ARGV[6]
local c = call_get(id)
if not c then
  return {'unknown_call'}
end
if c.state ~= 'accepted' then
  -- go-redis runs a command again when its connection broke before the
  -- reply: the PublishCall that published the call (its nonce) still
  -- answers published, so that its caller writes the frame.
  local again = 0
  if c.state == 'published' and c.lease == lease and redis.call('HGET', call_key(id), 'publish_nonce') == nonce then
    again = 1
  end
  return {'ok', redis.call('HGETALL', call_key(id)), again}
end
-- A call accepted with a token that is no longer the active one is not
-- admitted any more.
local active = meta(K_TOKENS, c.toolset)
if not active or active.token ~= c.token then
  settle(c, 'call_not_admitted', '', 'the call\'s registration of toolset ' .. c.toolset .. ' is no longer active', false)
  return {'ok', redis.call('HGETALL', call_key(id)), 0}
end
local l = lease_get(lease)
if not l or not routable(l, c.toolset, c.token) then
  return {'lease_gone'}
end
redis.call('SREM', accepted_key(c.toolset), id)
redis.call('HSET', call_key(id), 'state', 'published', 'lease', lease, 'published', now(), 'publish_nonce', nonce)
redis.call('SADD', published_key(lease), id)
return {'ok', redis.call('HGETALL', call_key(id)), 1}
