-- settle.lua: SettleCall, one round trip on the call hot path. ARGV[4]
-- call id, [5] lease id, [6] outcome, [7] result JSON, [8] error message,
-- [9] the failure's kind, [10] its recovery ('' when not posted).
-- The first outcome wins. Reply: {'ok', record}, or {'unknown_call'}, or
-- {'wrong_lease', state, lease of the record}.
local id, lease, outcome = ARGV[4], ARGV[5], ARGV[6]
local c = call_get(id)
if not c then
  return {'unknown_call'}
end
if c.state == 'settled' then
  return record(id)
end
if outcome == 'ok' or outcome == 'tool_error' then
  if c.state ~= 'published' or c.lease ~= lease then
    return {'wrong_lease', c.state, c.lease or ''}
  end
elseif (outcome == 'call_not_admitted' and c.state ~= 'accepted') or
    (outcome == 'outcome_unknown' and c.state ~= 'published') then
  return record(id)
end
settle(c, outcome, ARGV[7], ARGV[8], false, ARGV[9], ARGV[10])
return record(id)
