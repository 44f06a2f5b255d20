-- runs.lua: RunLog.Runs, read only: the runs of one index at one instant,
-- those of another agent or status left out (the order is the Go side's).
-- KEYS[1] the index: the runs index (sorted set, members: updated time,
-- 21 digits, ':', run id) when ARGV[2] is 'all', a session's set of run
-- ids when it is 'session'.
-- ARGV[1] the key prefix (a run's hash is prefix .. 'run:' .. run id),
-- ARGV[3] the agent, ARGV[4] the status ('' for any), ARGV[5] the limit
-- (0: all). With 'all' and a limit the index is walked from the most
-- recent update, a page at a time, and the walk stops once the limit is
-- reached and the update time changes: a large log is not read whole for
-- its latest runs, and runs tied at the cut are all returned for the Go
-- side to order by run id.
-- Reply: {'ok', then ten a run: run id, format, status, owner, last,
-- session, agent, parent, started, updated}.
local out = {'ok'}
local found = 0
local function add(id)
  local f = redis.call('HMGET', ARGV[1] .. 'run:' .. id, 'format', 'status', 'owner', 'last', 'session', 'agent', 'parent', 'started', 'updated')
  if f[4] and (ARGV[3] == '' or f[6] == ARGV[3]) and (ARGV[4] == '' or f[2] == ARGV[4]) then
    table.insert(out, id)
    for j = 1, 9 do
      table.insert(out, f[j] or '')
    end
    found = found + 1
  end
end
local limit = tonumber(ARGV[5])
if ARGV[2] ~= 'all' then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    add(id)
  end
  return out
end
local page, start, cut = 256, 0, nil
while true do
  local members = redis.call('ZREVRANGE', KEYS[1], start, start + page - 1)
  for _, m in ipairs(members) do
    local at = string.sub(m, 1, 21)
    if cut and at ~= cut then
      return out
    end
    add(string.sub(m, 23))
    if limit > 0 and found >= limit and not cut then
      cut = at
    end
  end
  if #members < page then
    return out
  end
  start = start + page
end
