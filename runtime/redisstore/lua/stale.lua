-- stale.lua: RunLog.Stale, read only: the running runs at one instant,
-- each with its owner's lease; the Go side compares the leases with the
-- caller's now (not Redis's clock) and sorts.
-- KEYS[1] the set of running run ids. ARGV[1] the key prefix (a run's
-- hash is prefix .. 'run:' .. run id, an owner's lease prefix ..
-- 'lease:' .. owner), ARGV[2] the running status.
-- Reply: {'ok', then eleven a run: run id, format, status, owner, last,
-- session, agent, parent, started, updated, the owner's lease (its until,
-- 21 digits; '' for none)}.
local out = {'ok'}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', ARGV[1] .. 'run:' .. id, 'format', 'status', 'owner', 'last', 'session', 'agent', 'parent', 'started', 'updated')
  if f[4] and f[2] == ARGV[2] then
    table.insert(out, id)
    for j = 1, 9 do
      table.insert(out, f[j] or '')
    end
    table.insert(out, redis.call('GET', ARGV[1] .. 'lease:' .. (f[3] or '')) or '')
  end
end
return out
