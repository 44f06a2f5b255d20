-- renew_all.lua: RenewAll. Every lease not ended yet, past its expiry or
-- not, gets a full TTL from now; nothing ends, nothing settles.
-- Reply: {'ok', {lease...}}.
local out = {}
for _, l in ipairs(leases_where(function() return true end)) do
  l.expires = tadd(now(), l.ttl)
  lease_put(l)
  out[#out + 1] = cjson.encode(l)
end
return {'ok', out}
