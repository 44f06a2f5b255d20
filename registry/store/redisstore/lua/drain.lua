-- drain.lua: Drain. ARGV[4] lease id. The live lease stops taking new
-- calls; its expiry stays. Reply: {'ok', lease}, or {'lease_gone'}, or
-- {'lease_expired', expiry}.
local l = lease_get(ARGV[4])
if not l then
  return {'lease_gone'}
end
if not live(l) then
  return {'lease_expired', l.expires}
end
l.state = 'draining'
lease_put(l)
return {'ok', cjson.encode(l)}
