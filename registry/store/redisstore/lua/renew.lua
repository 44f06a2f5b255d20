-- renew.lua: Renew. ARGV[4] lease id. The live lease's expiry moves to now
-- plus its TTL. Reply: {'ok', lease}, or {'lease_gone'}, or
-- {'lease_expired', expiry}.
local l = lease_get(ARGV[4])
if not l then
  return {'lease_gone'}
end
if not live(l) then
  return {'lease_expired', l.expires}
end
l.expires = tadd(now(), l.ttl)
lease_put(l)
return {'ok', cjson.encode(l)}
