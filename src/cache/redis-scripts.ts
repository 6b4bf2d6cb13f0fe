import { createHash } from 'node:crypto';

/**
 * The Lua scripts of the Redis cache store: every decision that must be atomic runs as one
 * script (loaded once, run with EVALSHA). Scripts read the clock with the server's TIME, not
 * the client's, so every replica of the gateway measures windows against one clock; since
 * Redis 5 a script that calls TIME is replicated by its effects, which keeps replicas equal.
 *
 * A sliding log is three keys in one hash slot: a sorted set (score = ms timestamp, member =
 * reservation id), a hash (id -> cost) and a running sum. Replies carry numbers as strings,
 * because RESP2 truncates Lua numbers to integers.
 */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

const WINDOW_PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local log_key, cost_key, sum_key = KEYS[1], KEYS[2], KEYS[3]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Drops the entries that left the window (score <= now - window) and answers the sum of the rest.
local function prune(now, window)
  local cutoff = now - window
  local used = tonumber(redis.call('GET', sum_key) or '0')
  local expired = redis.call('ZRANGEBYSCORE', log_key, '-inf', cutoff)
  for i = 1, #expired, 500 do
    local ids = {unpack(expired, i, math.min(i + 499, #expired))}
    local costs = redis.call('HMGET', cost_key, unpack(ids))
    for _, cost in ipairs(costs) do
      if cost then used = used - tonumber(cost) end
    end
    redis.call('HDEL', cost_key, unpack(ids))
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', log_key, '-inf', cutoff) end
  if redis.call('ZCARD', log_key) == 0 then used = 0 end
  return used
end

-- Stores the sum; every key lives one window past its newest entry, so idle windows vanish.
local function persist(used, window)
  if redis.call('ZCARD', log_key) == 0 then
    redis.call('DEL', log_key, cost_key, sum_key)
    return
  end
  redis.call('SET', sum_key, tostring(used), 'PX', window)
  redis.call('PEXPIRE', log_key, window)
  redis.call('PEXPIRE', cost_key, window)
end

-- Answers {admitted, used, retryAfterMs, resetMs}. When not admitted, walks from the oldest
-- entry until \`need\` units have left; when they never do (cost above limit), answers the reset.
local function decide(now, window, used, admitted, need)
  local reset = 0
  local newest = redis.call('ZRANGE', log_key, -1, -1, 'WITHSCORES')
  if #newest > 0 then reset = tonumber(newest[2]) + window - now end
  local retry = 0
  if not admitted then
    retry = reset
    local freed, start, found = 0, 0, false
    while not found do
      local page = redis.call('ZRANGE', log_key, start, start + 99, 'WITHSCORES')
      if #page == 0 then break end
      local ids = {}
      for i = 1, #page, 2 do ids[#ids + 1] = page[i] end
      local costs = redis.call('HMGET', cost_key, unpack(ids))
      for i = 1, #ids do
        freed = freed + (tonumber(costs[i]) or 0)
        if freed >= need then
          retry = tonumber(page[i * 2]) + window - now
          found = true
          break
        end
      end
      start = start + 100
    end
  end
  return {admitted and '1' or '0', tostring(used), tostring(math.max(0, retry)), tostring(math.max(0, reset))}
end
`;

/** KEYS: log, cost, sum. ARGV: id, cost, limit, windowMs. An existing entry of the same id is replaced. */
const WINDOW_ADMIT = `${WINDOW_PRELUDE}
local id, cost, limit, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
local used = prune(now, window)
local previous = tonumber(redis.call('HGET', cost_key, id) or '0')
local admitted = used - previous + cost <= limit
if admitted then
  used = used - previous + cost
  redis.call('ZADD', log_key, now, id)
  redis.call('HSET', cost_key, id, ARGV[2])
end
persist(used, window)
return decide(now, window, used, admitted, used + cost - limit)
`;

/** KEYS: log, cost, sum. ARGV: id, cost (0 releases), windowMs. Keeps the entry's timestamp. */
const WINDOW_ADJUST = `${WINDOW_PRELUDE}
local id, cost, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local used = prune(now, window)
local previous = redis.call('HGET', cost_key, id)
if previous then
  used = used - tonumber(previous) + cost
  if cost == 0 then
    redis.call('ZREM', log_key, id)
    redis.call('HDEL', cost_key, id)
  else
    redis.call('HSET', cost_key, id, ARGV[2])
  end
end
persist(used, window)
return 1
`;

/** KEYS: log, cost, sum. ARGV: limit, windowMs. The state a one-unit admission would see. */
const WINDOW_STATE = `${WINDOW_PRELUDE}
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = now_ms()
local used = prune(now, window)
persist(used, window)
return decide(now, window, used, used + 1 <= limit, used + 1 - limit)
`;

/** KEYS: counter. ARGV: by, ttlMs (> 0 sets the expiry when the key is created). */
const INCR_BY = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if created and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value
`;

/** KEYS: counter. ARGV: amount, limit. Answers {status, value}: 0 missing, 1 admitted, 2 rejected. */
const COUNTER_RESERVE = `
local value = redis.call('GET', KEYS[1])
if not value then return {'0', '0'} end
if tonumber(value) + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {'2', value} end
return {'1', redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])}
`;

function script(source: string): RedisScript {
  return Object.freeze({ source, sha1: createHash('sha1').update(source).digest('hex') });
}

export const REDIS_SCRIPTS = Object.freeze({
  windowAdmit: script(WINDOW_ADMIT),
  windowAdjust: script(WINDOW_ADJUST),
  windowState: script(WINDOW_STATE),
  incrBy: script(INCR_BY),
  counterReserve: script(COUNTER_RESERVE),
});
