-- common.lua is prepended to every script of the package (scripts.go): the
-- key layout, the store's clock, and the reads and writes of leases and
-- calls that several scripts share. doc.go describes the layout.
--
-- Every script is called with the same KEYS, the fixed keys of the layout,
-- and ARGV[1] the key prefix (for the keys of one call, lease or toolset),
-- ARGV[2] the store's clock ('' reads the Redis server's TIME), ARGV[3]
-- the change log limit; the script's own arguments follow, from ARGV[4].
--
-- Records are strings only: numbers in a lease are decimal strings, so
-- cjson (which keeps 14 digits) never rounds them, and the JSON of a
-- registration or call (payload, result) is kept as the Go side wrote it,
-- never decoded and encoded again here.
local K_REV, K_CHANGES, K_ACTIVE, K_TOKENS, K_PENDING, K_PTOKENS, K_LEASES, K_UNSETTLED, K_SETTLED = unpack(KEYS)
local P = ARGV[1]

-- Times are 21-digit strings: seconds since 1970 plus OFFSET (12 digits,
-- so times before 1970 stay positive), then nanoseconds (9 digits). Equal
-- width, so their string order is their time order (sorted set members
-- start with one), and exact to the nanosecond, which a Lua number (a
-- double) is not.
local OFFSET = 100000000000

local function tkey(sec, nsec)
  return string.format('%012d%09d', sec, nsec)
end

local function tsplit(t)
  return tonumber(string.sub(t, 1, 12)), tonumber(string.sub(t, 13, 21))
end

-- tafter reports whether time a is after time b.
local function tafter(a, b)
  local as, ans = tsplit(a)
  local bs, bns = tsplit(b)
  return as > bs or (as == bs and ans > bns)
end

-- tadd adds a duration given as decimal nanoseconds (Go's
-- time.Duration), split into seconds and nanoseconds so the sum is exact.
local function tadd(t, d)
  local s, ns = tsplit(t)
  ns = ns + tonumber(string.sub(d, -9))
  if ns >= 1000000000 then
    ns, s = ns - 1000000000, s + 1
  end
  return tkey(s + (tonumber(string.sub(d, 1, -10)) or 0), ns)
end

-- now is the store's clock: the caller's (a test clock) or the Redis
-- server's, read once a script so every time a script writes is the same.
local NOW
local function now()
  if not NOW then
    if ARGV[2] ~= '' then
      NOW = ARGV[2]
    else
      local t = redis.call('TIME')
      NOW = tkey(tonumber(t[1]) + OFFSET, tonumber(t[2]) * 1000)
    end
  end
  return NOW
end

-- Leases: K_LEASES maps a lease id to its record, a JSON object of strings.
local function lease_get(id)
  local v = redis.call('HGET', K_LEASES, id)
  if not v then
    return nil
  end
  return cjson.decode(v)
end

local function lease_put(l)
  redis.call('HSET', K_LEASES, l.id, cjson.encode(l))
end

-- live: a lease past its expiry is not live, even before it is ended.
local function live(l)
  return not tafter(now(), l.expires)
end

-- leases_where reads the leases not ended yet that keep accepts.
local function leases_where(keep)
  local flat = redis.call('HGETALL', K_LEASES)
  local out = {}
  for i = 2, #flat, 2 do
    local l = cjson.decode(flat[i])
    if keep(l) then
      out[#out + 1] = l
    end
  end
  return out
end

-- routable: a call may be handed to a lease live, active, on its
-- registration.
local function routable(l, toolset, token)
  return live(l) and l.state == 'active' and l.toolset == toolset and l.token == token
end

-- meta reads {token, revision, fingerprint} of the toolset's active
-- (K_TOKENS) or pending (K_PTOKENS) registration.
local function meta(hash, toolset)
  local v = redis.call('HGET', hash, toolset)
  if not v then
    return nil
  end
  return cjson.decode(v)
end

-- Calls: a hash per call, P..'call:'..id; the indexes name calls by id.
local function call_key(id)
  return P .. 'call:' .. id
end

-- accepted_key: the set of a toolset's accepted calls.
local function accepted_key(toolset)
  return P .. 'accepted:' .. toolset
end

-- published_key: the set of the unsettled calls published to a lease.
local function published_key(lease)
  return P .. 'published:' .. lease
end

-- call_get reads the fields of a call the scripts decide on; nil when
-- there is no record.
local function call_get(id)
  local v = redis.call('HMGET', call_key(id), 'state', 'lease', 'accepted', 'toolset', 'token')
  if not v[1] then
    return nil
  end
  return {id = id, state = v[1], lease = v[2], accepted = v[3], toolset = v[4], token = v[5]}
end

-- Effects of a change, returned as the last six elements of a reply:
-- registrations activated, toolsets removed, leases draining, leases
-- ended, calls settled (HGETALL of each), catalog revision (0: unchanged).
local fx = {activated = {}, removed = {}, draining = {}, ended = {}, settled = {}, revision = 0}

local function effects()
  return fx.activated, fx.removed, fx.draining, fx.ended, fx.settled, fx.revision
end

-- settle records an unsettled call's outcome: a result for 'ok', an error
-- message and the failure's kind and recovery otherwise (kind and
-- recovery may be nil: the outcomes the registry decides have none). The
-- call leaves its lease's or toolset's set and the unsettled index for
-- the settled one; collect lists it in fx.settled.
local function settle(c, outcome, result, msg, collect, kind, recovery)
  local key = call_key(c.id)
  if c.state == 'published' then
    redis.call('SREM', published_key(c.lease), c.id)
  else
    redis.call('SREM', accepted_key(c.toolset), c.id)
  end
  redis.call('ZREM', K_UNSETTLED, c.accepted .. c.id)
  redis.call('HDEL', key, 'result', 'error', 'error_kind', 'error_recovery')
  redis.call('HSET', key, 'state', 'settled', 'outcome', outcome, 'settled', now())
  if outcome == 'ok' then
    if result ~= '' then
      redis.call('HSET', key, 'result', result)
    end
  else
    if msg ~= '' then
      redis.call('HSET', key, 'error', msg)
    end
    if kind and kind ~= '' then
      redis.call('HSET', key, 'error_kind', kind)
    end
    if recovery and recovery ~= '' then
      redis.call('HSET', key, 'error_recovery', recovery)
    end
  end
  redis.call('ZADD', K_SETTLED, 0, now() .. c.id)
  if collect then
    fx.settled[#fx.settled + 1] = redis.call('HGETALL', key)
  end
end

-- record is the reply of a script that answers with one call.
local function record(id)
  return {'ok', redis.call('HGETALL', call_key(id))}
end
