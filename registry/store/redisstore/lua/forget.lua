-- forget.lua: ForgetSettled. ARGV[4] the time before which results (and
-- error messages, not a failure's kind and recovery) are forgotten, ARGV[5] the time before which payloads
-- are ('' forgets none of that kind), ARGV[6] how many calls a kind may
-- forget in this run. Each kind resumes after the member of the settled
-- index it forgot last (P..'forgot:results', P..'forgot:payloads').
-- Reply: {'ok', records changed, whether a kind stopped at the batch}.
local batch = tonumber(ARGV[6])
local changed, seen, more = 0, {}, 0

-- without_payload drops the payload from a call's "rec" JSON as the Go
-- side wrote it (fields id, owner, caller_id, toolset, tool, run_id, token,
-- payload, digest, deadline, in that order), without decoding it: the first ',"payload":'
-- cannot be inside a string before it (a quote there is escaped), and the
-- last ',"digest":"' comes after it (the payload may hold that text).
local function without_payload(rec)
  local i = string.find(rec, ',"payload":', 1, true)
  if not i then
    return rec
  end
  local last, j = nil, i
  while true do
    local k = string.find(rec, ',"digest":"', j, true)
    if not k then
      break
    end
    last, j = k, k + 1
  end
  if not last then
    return rec
  end
  return string.sub(rec, 1, i - 1) .. string.sub(rec, last)
end

local kinds = {
  -- A failure's error_kind and error_recovery stay, with its outcome: they
  -- classify it and carry none of the call's data (store.Store's
  -- ForgetSettled).
  {mark = P .. 'forgot:results', before = ARGV[4], forget = function(key)
    redis.call('HDEL', key, 'result', 'error')
    redis.call('HSET', key, 'result_forgotten', '1')
  end},
  {mark = P .. 'forgot:payloads', before = ARGV[5], forget = function(key)
    local rec = redis.call('HGET', key, 'rec')
    if rec then
      redis.call('HSET', key, 'rec', without_payload(rec), 'payload_forgotten', '1')
    end
  end},
}
for _, kind in ipairs(kinds) do
  if kind.before ~= '' then
    local from = redis.call('GET', kind.mark)
    if from then
      from = '(' .. from
    else
      from = '-'
    end
    local members = redis.call('ZRANGEBYLEX', K_SETTLED, from, '(' .. kind.before, 'LIMIT', 0, batch)
    for _, m in ipairs(members) do
      local key = call_key(string.sub(m, 22))
      if redis.call('EXISTS', key) == 1 then
        kind.forget(key)
        if not seen[key] then
          seen[key], changed = true, changed + 1
        end
      end
    end
    if #members > 0 then
      redis.call('SET', kind.mark, members[#members])
    end
    if #members == batch then
      more = 1
    end
  end
end
return {'ok', changed, more}
