-- unregister.lua: Unregister. ARGV[4] toolset. Reply: {'ok', effects...}
-- or {'unknown_toolset'}.
--
-- The registrations go first, so that ending the leases activates
-- nothing; the leases end (their published calls settle as
-- outcome_unknown), then the calls still accepted settle as
-- call_not_admitted.
local toolset = ARGV[4]
if redis.call('HEXISTS', K_TOKENS, toolset) == 0 and redis.call('HEXISTS', K_PTOKENS, toolset) == 0 then
  return {'unknown_toolset'}
end
for _, h in ipairs({K_ACTIVE, K_TOKENS, K_PENDING, K_PTOKENS}) do
  redis.call('HDEL', h, toolset)
end
local leases = leases_where(function(l)
  return l.toolset == toolset
end)
for _, l in ipairs(leases) do
  end_lease(l.id, 'ended with its toolset')
end
local msg = 'toolset ' .. toolset .. ' was unregistered'
local ids = redis.call('SMEMBERS', accepted_key(toolset))
table.sort(ids)
for _, id in ipairs(ids) do
  local c = call_get(id)
  if c and c.state ~= 'settled' then
    local outcome = 'call_not_admitted'
    if c.state == 'published' then
      outcome = 'outcome_unknown'
    end
    settle(c, outcome, '', msg, true)
  end
end
redis.call('DEL', accepted_key(toolset))
fx.removed[#fx.removed + 1] = toolset
change_catalog(toolset, 'removed')
return {'ok', effects()}
