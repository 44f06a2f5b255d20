-- purge.lua: PurgeSettled. ARGV[4] the time before which settled calls
-- are deleted. The settled index's members are settled-at time then call
-- id, all scored 0: the members before the time sort first.
-- Reply: {'ok', how many were deleted}.
local members = redis.call('ZRANGEBYLEX', K_SETTLED, '-', '(' .. ARGV[4])
for _, m in ipairs(members) do
  redis.call('DEL', call_key(string.sub(m, 22)))
end
if #members > 0 then
  redis.call('ZREMRANGEBYLEX', K_SETTLED, '-', '(' .. ARGV[4])
end
return {'ok', #members}
