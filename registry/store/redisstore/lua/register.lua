-- register.lua: Register. ARGV[4] toolset, [5] token, [6] revision,
-- [7] fingerprint, [8] the registration's JSON, [9] the new lease's id,
-- [10] provider, [11] max in flight, [12] TTL in nanoseconds.
-- Reply: {'ok', lease, registration the lease is on, effects...}, or
-- {'revision_conflict', active fingerprint}, or {'replacement_pending',
-- pending revision, active revision}.
--
-- The registration is checked against what the expiry sweep will leave of
-- its toolset, then the sweep runs and the registration is applied: a
-- refused registration writes nothing.
local toolset, token, revision, fingerprint = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
-- A registration's record starts with the time it was stored; the Go side
-- stamps RegisteredAt with it when the registration has none.
local value = now() .. ARGV[8]
local value_meta = cjson.encode({token = token, revision = revision, fingerprint = fingerprint})

local function any_live_on(leases, tok)
  for _, l in ipairs(leases) do
    if l.token == tok and live(l) then
      return true
    end
  end
  return false
end

local function toolset_leases()
  return leases_where(function(l)
    return l.toolset == toolset
  end)
end

local active, pending = meta(K_TOKENS, toolset), meta(K_PTOKENS, toolset)
if pending and not any_live_on(toolset_leases(), active.token) then
  active, pending = pending, nil -- the sweep will activate it
end
local step
if not active then
  step = 'create'
elseif token == active.token then
  step = 'join_active'
elseif revision == active.revision and fingerprint ~= active.fingerprint then
  return {'revision_conflict', active.fingerprint}
elseif pending and token == pending.token then
  step = 'join_pending'
elseif pending then
  return {'replacement_pending', pending.revision, active.revision}
else
  step = 'stage'
end

expire()
local lease = {id = ARGV[9], toolset = toolset, token = token, provider = ARGV[10],
  max_in_flight = ARGV[11], state = 'active', ttl = ARGV[12], expires = tadd(now(), ARGV[12])}
local on = value
if step == 'create' then
  redis.call('HSET', K_ACTIVE, toolset, value)
  redis.call('HSET', K_TOKENS, toolset, value_meta)
  fx.activated[#fx.activated + 1] = value
  change_catalog(toolset, 'registered')
elseif step == 'join_active' then
  -- Joining the active registration while a replacement is pending joins
  -- it draining: a restarted replica of the old revision must not hold the
  -- replacement back.
  on = redis.call('HGET', K_ACTIVE, toolset)
  if redis.call('HEXISTS', K_PENDING, toolset) == 1 then
    lease.state = 'draining'
  end
elseif step == 'join_pending' then
  on = redis.call('HGET', K_PENDING, toolset)
  lease.state = 'pending'
else
  -- Stage the replacement: it waits for the active registration's live
  -- leases, which start draining; with none, it replaces it at once.
  local cur = meta(K_TOKENS, toolset)
  local leases = toolset_leases()
  if not any_live_on(leases, cur.token) then
    replace(toolset, value, value_meta)
  else
    redis.call('HSET', K_PENDING, toolset, value)
    redis.call('HSET', K_PTOKENS, toolset, value_meta)
    for _, l in ipairs(leases) do
      if l.token == cur.token and l.state == 'active' then
        l.state = 'draining'
        lease_put(l)
        fx.draining[#fx.draining + 1] = cjson.encode(l)
      end
    end
    lease.state = 'pending'
  end
end
lease_put(lease)
return {'ok', cjson.encode(lease), on, effects()}
