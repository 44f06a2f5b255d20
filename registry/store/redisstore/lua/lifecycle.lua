-- lifecycle.lua is prepended, after common.lua, to the scripts that end
-- leases and change the catalog: register, release, expire, unregister.

-- change_catalog records one change of the set of active registrations:
-- the revision grows by one, the change is logged (member
-- 'revision:kind:toolset', scored by its revision) and the log trimmed to
-- the limit (more than one change goes when the limit was lowered).
local function change_catalog(toolset, kind)
  local rev = redis.call('INCR', K_REV)
  redis.call('ZADD', K_CHANGES, rev, string.format('%d:%s:%s', rev, kind, toolset))
  local limit = tonumber(ARGV[3])
  if rev > limit then
    redis.call('ZREMRANGEBYSCORE', K_CHANGES, '-inf', rev - limit)
  end
  fx.revision = rev
end

-- replace makes a registration (value: its record; next_meta: its
-- {token, revision, fingerprint} as JSON) the toolset's active one: its
-- pending leases become active, the calls still accepted with another
-- token settle as call_not_admitted, the catalog records the replacement.
local function replace(toolset, value, next_meta)
  local nxt = cjson.decode(next_meta)
  redis.call('HSET', K_ACTIVE, toolset, value)
  redis.call('HSET', K_TOKENS, toolset, next_meta)
  redis.call('HDEL', K_PENDING, toolset)
  redis.call('HDEL', K_PTOKENS, toolset)
  local pending = leases_where(function(l)
    return l.toolset == toolset and l.token == nxt.token and l.state == 'pending'
  end)
  for _, l in ipairs(pending) do
    l.state = 'active'
    lease_put(l)
  end
  local msg = 'toolset ' .. toolset .. ' was replaced by revision ' .. nxt.revision ..
    ' before the call was handed to a provider'
  local ids = redis.call('SMEMBERS', accepted_key(toolset))
  table.sort(ids)
  for _, id in ipairs(ids) do
    local c = call_get(id)
    if c and c.state == 'accepted' and c.token ~= nxt.token then
      settle(c, 'call_not_admitted', '', msg, true)
    end
  end
  fx.activated[#fx.activated + 1] = value
  change_catalog(toolset, 'replaced')
end

-- activate_if_drained activates the toolset's pending registration when
-- no lease on the active one is left (expired ones count until ended).
local function activate_if_drained(toolset)
  local pending = redis.call('HGET', K_PTOKENS, toolset)
  if not pending then
    return
  end
  local active = meta(K_TOKENS, toolset)
  local left = leases_where(function(l)
    return l.toolset == toolset and l.token == active.token
  end)
  if #left == 0 then
    replace(toolset, redis.call('HGET', K_PENDING, toolset), pending)
  end
end

-- end_lease ends a lease (why: how, for the settled calls' error): its
-- published calls settle as outcome_unknown, and a replacement waiting for
-- it activates when it was the last lease on the active registration.
-- Ending a lease that ended already does nothing.
local function end_lease(id, why)
  local l = lease_get(id)
  if not l then
    return
  end
  redis.call('HDEL', K_LEASES, id)
  fx.ended[#fx.ended + 1] = cjson.encode(l)
  local msg = 'lease ' .. id .. ' ' .. why .. " before the call's outcome was posted"
  local ids = redis.call('SMEMBERS', published_key(id))
  table.sort(ids)
  for _, cid in ipairs(ids) do
    local c = call_get(cid)
    if c and c.state == 'published' then
      settle(c, 'outcome_unknown', '', msg, true)
    end
  end
  redis.call('DEL', published_key(id))
  activate_if_drained(l.toolset)
end

-- expire ends every lease past its expiry.
local function expire()
  local expired = leases_where(function(l)
    return not live(l)
  end)
  for _, l in ipairs(expired) do
    end_lease(l.id, 'expired')
  end
end
