-- unsettled.lua: Unsettled, read only. The unsettled index's members are
-- accepted-at time then call id, all scored 0: oldest first, then by id.
-- Reply: {'ok', {record...}}.
local out = {}
for _, m in ipairs(redis.call('ZRANGE', K_UNSETTLED, 0, -1)) do
  out[#out + 1] = redis.call('HGETALL', call_key(string.sub(m, 22)))
end
return {'ok', out}
