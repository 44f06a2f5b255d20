-- runs.lua: RunLog.Runs, read only: the runs of one index at one instant,
-- those of another agent or status left out (the order and the limit are
-- the Go side's). KEYS[1] the index: the runs index (sorted set, members:
-- updated time, 21 digits, ':', run id) when ARGV[2] is 'all', a
-- session's set of run ids when it is 'session'.
-- ARGV[1] the key prefix (a run's hash is prefix .. 'run:' .. run id),
-- ARGV[3] the agent, ARGV[4] the status ('' for any).
-- Reply: {'ok', then ten a run: run id, format, status, owner, last,
-- session, agent, parent, started, updated}.
local ids = {}
if ARGV[2] == 'all' then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    table.insert(ids, string.sub(m, 23))
  end
else
  ids = redis.call('SMEMBERS', KEYS[1])
end
local out = {'ok'}
for _, id in ipairs(ids) do
  local f = redis.call('HMGET', ARGV[1] .. 'run:' .. id, 'format', 'status', 'owner', 'last', 'session', 'agent', 'parent', 'started', 'updated')
  if f[4] and (ARGV[3] == '' or f[6] == ARGV[3]) and (ARGV[4] == '' or f[2] == ARGV[4]) then
    table.insert(out, id)
    for j = 1, 9 do
      table.insert(out, f[j] or '')
    end
  end
end
return out
