-- append.lua: RunLog.Append, all or nothing: runtime.PlanAppend's rules
-- checked against the stored run before anything is written, then the
-- new events and the run's info written.
-- KEYS[1] the run's stream (entry ids 0-<seq>, one field "e": the
-- record), KEYS[2] the run's hash {format, status, owner, last, session,
-- agent, parent, started, updated}, KEYS[3] the runs index (members:
-- updated time, 21 digits, ':', run id, scored 0), KEYS[4] the set of
-- running run ids, KEYS[5] the set of the run ids of the session of the
-- first event (written for a new run with a session only).
-- ARGV[1] the run id, ARGV[2] the owner, ARGV[3] the hash's format
-- (runtime.EventFormat), ARGV[4] the running status, ARGV[5] the statuses
-- that end a run, separated by spaces, ARGV[6], ARGV[7], ARGV[8] the
-- session, agent and parent run id of the first event (a new run's
-- info), ARGV[9] the number of events, then four arguments an event: its
-- seq (decimal), its record (runtime.MarshalEvent), the status its type
-- sets ('' for a type that keeps the run's status: running for a new
-- run; this is runtime.StatusAfter, computed in Go) and its time (21
-- digits, see timekey.go).
-- Reply: {'ok', events written}; {'conflict', i, stored owner, stored
-- status} when event i (from 1) differs from the one stored at its seq
-- (the Go side adds ErrRunEnded when that status ended); {'gap', i, seq of
-- the latest event}; {'ended', i, status} for a new event of an ended
-- run; {'format', stored format} for a run another release wrote (left
-- as it is); {'damaged', why} when the stream and the hash disagree (the
-- keys were changed by something else than this package).
local cur = redis.call('HMGET', KEYS[2], 'format', 'status', 'owner', 'last', 'updated')
local last, lastID = 0, ''
if cur[4] then
  if cur[1] ~= ARGV[3] then
    return {'format', cur[1] or ''}
  end
  last, lastID = tonumber(cur[4]), '0-' .. cur[4]
end
local tip = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local tipID = ''
if tip[1] then
  tipID = tip[1][1]
end
if tipID ~= lastID then
  return {'damaged', 'the run hash says its last event is "' .. lastID .. '", its stream ends at entry "' .. tipID .. '"'}
end

local ended = {}
for s in string.gmatch(ARGV[5], '%S+') do
  ended[s] = true
end
local status = cur[2] or ''
local top = last -- the seq of the run's latest event, stored or new
local new = {}   -- the new events: {seq, record, time}
local added = {} -- their records by seq
for i = 1, tonumber(ARGV[9]) do
  local b = 9 + (i - 1) * 4
  local seqArg, rec, sets, at = ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4]
  local seq = tonumber(seqArg)
  if seq <= top then
    local old
    if seq <= last then
      local e = redis.call('XRANGE', KEYS[1], '0-' .. seqArg, '0-' .. seqArg)
      if not e[1] or e[1][2][1] ~= 'e' then
        return {'damaged', 'its stream has no entry 0-' .. seqArg .. ' (field e) though its last event is ' .. cur[4]}
      end
      old = e[1][2][2]
    else
      old = added[seq]
    end
    if old ~= rec then
      return {'conflict', i, cur[3] or '', cur[2] or ''}
    end
  else
    if seq ~= top + 1 then
      return {'gap', i, top}
    end
    if ended[status] then
      return {'ended', i, status}
    end
    if sets ~= '' then
      status = sets
    elseif status == '' then
      status = ARGV[4]
    end
    top = seq
    added[seq] = rec
    table.insert(new, {seqArg, rec, at})
  end
end
if #new == 0 then
  return {'ok', 0}
end

for _, e in ipairs(new) do
  redis.call('XADD', KEYS[1], '0-' .. e[1], 'e', e[2])
end
local updated = new[#new][3]
if last == 0 then
  redis.call('HSET', KEYS[2], 'format', ARGV[3], 'session', ARGV[6], 'agent', ARGV[7], 'parent', ARGV[8], 'started', new[1][3])
  if ARGV[6] ~= '' then
    redis.call('SADD', KEYS[5], ARGV[1])
  end
end
if cur[5] then
  redis.call('ZREM', KEYS[3], cur[5] .. ':' .. ARGV[1])
end
redis.call('HSET', KEYS[2], 'status', status, 'owner', ARGV[2], 'last', new[#new][1], 'updated', updated)
redis.call('ZADD', KEYS[3], 0, updated .. ':' .. ARGV[1])
if status == ARGV[4] then
  redis.call('SADD', KEYS[4], ARGV[1])
else
  redis.call('SREM', KEYS[4], ARGV[1])
end
return {'ok', #new}
