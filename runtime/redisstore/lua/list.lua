-- list.lua: SuspensionStore.List, read only: every checkpoint at one
-- instant. KEYS[1] the suspended set. ARGV[1] the key prefix (a run's hash
-- is prefix .. 'checkpoint:' .. run id).
-- Reply: {'ok', run id, format, record, run id, format, record, ...}.
local out = {'ok'}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local cur = redis.call('HMGET', ARGV[1] .. 'checkpoint:' .. id, 'format', 'record')
  if cur[2] then
    table.insert(out, id)
    table.insert(out, cur[1] or '')
    table.insert(out, cur[2])
  end
end
return out
