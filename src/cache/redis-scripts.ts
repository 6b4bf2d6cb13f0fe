import { createHash } from 'node:crypto';

/**
 * The Lua scripts of the Redis cache store: every decision that must be atomic runs as one
 * script (loaded once, run with EVALSHA). Scripts read the clock with the server's TIME, not
 * the client's, so every replica of the gateway measures windows against one clock; since
 * Redis 5 a script that calls TIME is replicated by its effects, which keeps replicas equal.
 *
 * A sliding log is three keys in one hash slot: a sorted set (score = ms timestamp, member =
 * reservation id), a hash (id -> cost) and a running sum. A call count (a key's request window,
 * where every entry costs 1 and is never adjusted) is the sorted set alone: its size is its sum,
 * which takes the admission from eleven Redis commands per window to five. Replies carry numbers
 * as strings, because RESP2 truncates Lua numbers to integers.
 */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

const WINDOW_PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The log, cost and sum keys of one window, from KEYS[first].
local function window_at(first)
  return {log = KEYS[first], cost = KEYS[first + 1], sum = KEYS[first + 2]}
end

-- Drops the entries that left the window (score <= now - window) and answers the sum of the rest.
local function prune(w, now, window)
  local cutoff = now - window
  local used = tonumber(redis.call('GET', w.sum) or '0')
  local expired = redis.call('ZRANGEBYSCORE', w.log, '-inf', cutoff)
  for i = 1, #expired, 500 do
    local ids = {unpack(expired, i, math.min(i + 499, #expired))}
    local costs = redis.call('HMGET', w.cost, unpack(ids))
    for _, cost in ipairs(costs) do
      if cost then used = used - tonumber(cost) end
    end
    redis.call('HDEL', w.cost, unpack(ids))
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', w.log, '-inf', cutoff) end
  if redis.call('ZCARD', w.log) == 0 then used = 0 end
  return used
end

-- The cost \`id\` holds in the window (0 when it holds none).
local function held(w, id)
  return tonumber(redis.call('HGET', w.cost, id) or '0')
end

-- Records \`id\` at \`now\` with \`cost\` (text), replacing an entry of the same id.
local function take(w, now, id, cost)
  redis.call('ZADD', w.log, now, id)
  redis.call('HSET', w.cost, id, cost)
end

-- Holds \`id\` from \`now\`: an entry the log has keeps its cost; one it lacks is taken with
-- \`cost_text\` (a reservation the store lost, named by the call that still holds it). Answers the new sum.
local function hold(w, now, id, cost_text, used)
  if redis.call('HEXISTS', w.cost, id) == 0 then
    redis.call('HSET', w.cost, id, cost_text)
    used = used + tonumber(cost_text)
  end
  redis.call('ZADD', w.log, now, id)
  return used
end

-- Replaces the cost of \`id\` (0 releases it), keeping its timestamp; answers the new sum.
local function adjust(w, id, cost, cost_text, used)
  local previous = redis.call('HGET', w.cost, id)
  if not previous then return used end
  if cost == 0 then
    redis.call('ZREM', w.log, id)
    redis.call('HDEL', w.cost, id)
  else
    redis.call('HSET', w.cost, id, cost_text)
  end
  return used - tonumber(previous) + cost
end

-- Stores the sum; every key lives one window past its newest entry, so idle windows vanish.
-- \`taken\`: an entry was just written, so the log cannot be empty.
local function persist(w, used, window, taken)
  if not taken and redis.call('ZCARD', w.log) == 0 then
    redis.call('DEL', w.log, w.cost, w.sum)
    return
  end
  redis.call('SET', w.sum, tostring(used), 'PX', window)
  redis.call('PEXPIRE', w.log, window)
  redis.call('PEXPIRE', w.cost, window)
end

-- Holds for another \`lease\` each reservation named from ARGV[first] on (id and cents pairs), taking
-- again those the log lacks; the log is then stored.
local function hold_all(w, lease, first)
  local now = now_ms()
  local used = prune(w, now, lease)
  for i = first, #ARGV, 2 do
    used = hold(w, now, ARGV[i], ARGV[i + 1], used)
  end
  persist(w, used, lease, #ARGV >= first)
end

-- Answers {admitted, used, retryAfterMs, resetMs}. When not admitted, walks from the oldest
-- entry until \`need\` units have left; when they never do (cost above limit), answers the reset.
-- \`taken\`: an entry was just written at \`now\`, so it is the newest.
local function decide(w, now, window, used, admitted, need, taken)
  local reset = 0
  if taken then
    reset = window
  else
    local newest = redis.call('ZRANGE', w.log, -1, -1, 'WITHSCORES')
    if #newest > 0 then reset = tonumber(newest[2]) + window - now end
  end
  local retry = 0
  if not admitted then
    retry = reset
    local freed, start, found = 0, 0, false
    while not found do
      local page = redis.call('ZRANGE', w.log, start, start + 99, 'WITHSCORES')
      if #page == 0 then break end
      local ids = {}
      for i = 1, #page, 2 do ids[#ids + 1] = page[i] end
      local costs = redis.call('HMGET', w.cost, unpack(ids))
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
local w = window_at(1)
local id, cost, limit, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
local used = prune(w, now, window)
local previous = held(w, id)
local admitted = used - previous + cost <= limit
if admitted then
  used = used - previous + cost
  take(w, now, id, ARGV[2])
end
persist(w, used, window, admitted)
return decide(w, now, window, used, admitted, used + cost - limit, admitted)
`;

/** KEYS: log, cost, sum. ARGV: id, cost (0 releases), windowMs. Keeps the entry's timestamp. */
const WINDOW_ADJUST = `${WINDOW_PRELUDE}
local w = window_at(1)
local id, cost, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local used = adjust(w, id, cost, ARGV[2], prune(w, now, window))
persist(w, used, window)
return 1
`;

/** KEYS: log, cost, sum. ARGV: limit, windowMs. The state a one-unit admission would see. */
const WINDOW_STATE = `${WINDOW_PRELUDE}
local w = window_at(1)
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = now_ms()
local used = prune(w, now, window)
persist(w, used, window)
return decide(w, now, window, used, used + 1 <= limit, used + 1 - limit)
`;

/**
 * A call count: one sorted set (score = ms timestamp, member = call id) whose size is the
 * window's sum. An entry of the same id is replaced, as in a sliding log.
 */
const COUNT_PRELUDE = `
-- The log after pruning, and whether one more call under \`id\` fits \`limit\`.
local function count_check(log, now, window, id, limit)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window)
  local used = redis.call('ZCARD', log)
  local previous = redis.call('ZSCORE', log, id) and 1 or 0
  return {log = log, used = used, fits = used - previous + 1 <= limit, need = used - previous + 1 - limit}
end

-- Takes the call's entry; the log lives one window past it, its newest entry.
local function count_take(count, now, window, id)
  if redis.call('ZADD', count.log, now, id) == 1 then count.used = count.used + 1 end
  redis.call('PEXPIRE', count.log, window)
end

-- decide's four fields (\`taken\` as there). A refused call waits for the entry whose leaving
-- makes room: the \`need\`-th oldest; when there is none (limit 0), it waits for the reset.
local function count_decide(count, now, window, admitted, taken)
  local reset = 0
  if taken then
    reset = window
  elseif count.used > 0 then
    reset = tonumber(redis.call('ZRANGE', count.log, -1, -1, 'WITHSCORES')[2]) + window - now
  end
  local retry = 0
  if not admitted then
    retry = reset
    if count.need >= 1 then
      local oldest = redis.call('ZRANGE', count.log, count.need - 1, count.need - 1, 'WITHSCORES')
      if #oldest > 0 then retry = tonumber(oldest[2]) + window - now end
    end
  end
  return {admitted and '1' or '0', tostring(count.used), tostring(math.max(0, retry)), tostring(math.max(0, reset))}
end
`;

/**
 * One call's admission against the limits of one or more scopes (a key, then its team) in one
 * step. ARGV[1]: the JSON array of its arguments, all strings (`packedScriptArgs`): id,
 * windowMs, scopeCount, then nine per scope: hasRequests, requestLimit, hasTokens, tokenLimit,
 * tokenCost, hasBudget, budgetLimit, budgetAmount, leaseMs. KEYS, scope
 * after scope: the request count's log when it has one, the token window's three keys, then the
 * budget's spend counter and its reservation log's three keys. The reservation log is a sliding
 * log whose window is the lease: a reservation not renewed within it leaves by itself. Answers
 * {admitted}, then per scope decide's four fields per window present and {status, spent, held}
 * for its budget (status '0' missing, '1' room, '2' no room). Nothing is written unless every
 * limit of every scope admits.
 */
const ADMIT_CALL = `${WINDOW_PRELUDE}${COUNT_PRELUDE}
local args = cjson.decode(ARGV[1])
local id, window = args[1], tonumber(args[2])
local now = now_ms()
local next_key = 1
local admitted = true
local scopes = {}
for s = 0, tonumber(args[3]) - 1 do
  local a = 4 + s * 9
  local scope = {}
  if args[a] == '1' then
    scope.requests = count_check(KEYS[next_key], now, window, id, tonumber(args[a + 1]))
    next_key = next_key + 1
    admitted = scope.requests.fits and admitted
  end
  if args[a + 2] == '1' then
    local w = window_at(next_key)
    next_key = next_key + 3
    local cost_text, limit = args[a + 4], tonumber(args[a + 3])
    local cost = tonumber(cost_text)
    local used = prune(w, now, window)
    local previous = held(w, id)
    scope.tokens = {w = w, cost = cost, cost_text = cost_text, limit = limit, used = used, previous = previous}
    scope.tokens.fits = used - previous + cost <= limit
    admitted = scope.tokens.fits and admitted
  end
  if args[a + 5] == '1' then
    scope.has_budget = true
    scope.amount = args[a + 7]
    local spent = redis.call('GET', KEYS[next_key])
    if spent then
      local w, lease = window_at(next_key + 1), tonumber(args[a + 8])
      local used = prune(w, now, lease)
      local budget = {w = w, lease = lease, spent = spent, used = used, previous = held(w, id)}
      -- Admitted while budget - spent - held > 0 (DESIGN.md section 5), whatever this call's amount.
      budget.fits = tonumber(args[a + 6]) - tonumber(spent) - (used - budget.previous) > 0
      scope.budget = budget
    end
    next_key = next_key + 4
    admitted = admitted and scope.budget ~= nil and scope.budget.fits
  end
  scopes[#scopes + 1] = scope
end
local reply = {admitted and '1' or '0'}
local function answer(decision)
  for _, field in ipairs(decision) do reply[#reply + 1] = field end
end
for _, scope in ipairs(scopes) do
  local requests, tokens, budget = scope.requests, scope.tokens, scope.budget
  if requests then
    if admitted then count_take(requests, now, window, id) end
    answer(count_decide(requests, now, window, requests.fits, admitted))
  end
  if tokens then
    if admitted then
      tokens.used = tokens.used - tokens.previous + tokens.cost
      take(tokens.w, now, id, tokens.cost_text)
    end
    persist(tokens.w, tokens.used, window, admitted)
    local need = tokens.used + tokens.cost - tokens.limit
    answer(decide(tokens.w, now, window, tokens.used, tokens.fits, need, admitted))
  end
  if budget then
    if admitted then
      budget.used = budget.used - budget.previous + tonumber(scope.amount)
      take(budget.w, now, id, scope.amount)
    end
    persist(budget.w, budget.used, budget.lease, admitted)
    answer({budget.fits and '1' or '2', budget.spent, tostring(budget.used)})
  elseif scope.has_budget then
    answer({'0', '0', '0'})
  end
end
return reply
`;

/**
 * Finished calls of one key (and its team) settled in one step. ARGV[1]: the JSON array of its
 * arguments, all strings (`packedScriptArgs`): windowMs, scopeCount, then per scope: hasTokens,
 * hasBudget, costCents, leaseMs, tokenEntryCount, releaseCount, the id and cost of each token
 * entry, the ids of the budget reservations to release. KEYS, scope after scope: the token
 * window's three keys, the budget's spend counter and reservation log's three.
 * Each token entry is adjusted as by WINDOW_ADJUST; the cost is added to the spend counter only
 * when it exists (a missing one is seeded from the database, which the spend reaches too).
 */
const SETTLE_CALLS = `${WINDOW_PRELUDE}
local args = cjson.decode(ARGV[1])
local window = tonumber(args[1])
local next_key = 1
local a = 3
for s = 1, tonumber(args[2]) do
  local has_tokens, has_budget, cost, lease = args[a], args[a + 1], args[a + 2], tonumber(args[a + 3])
  local entries_end = a + 5 + 2 * tonumber(args[a + 4])
  local releases_end = entries_end + tonumber(args[a + 5])
  if has_tokens == '1' then
    local w = window_at(next_key)
    next_key = next_key + 3
    local used = prune(w, now_ms(), window)
    for i = a + 6, entries_end, 2 do
      used = adjust(w, args[i], tonumber(args[i + 1]), args[i + 1], used)
    end
    persist(w, used, window)
  end
  if has_budget == '1' then
    if tonumber(cost) ~= 0 and redis.call('EXISTS', KEYS[next_key]) == 1 then
      redis.call('INCRBYFLOAT', KEYS[next_key], cost)
    end
    local w = window_at(next_key + 1)
    next_key = next_key + 4
    local used = prune(w, now_ms(), lease)
    for i = entries_end + 1, releases_end do
      used = adjust(w, args[i], 0, '0', used)
    end
    persist(w, used, lease)
  end
  a = releases_end + 1
end
return 1
`;

/**
 * KEYS: a reservation log's three keys. ARGV: leaseMs, then the id and cents of each reservation
 * to hold for another lease (taken again when the log lost it).
 */
const RENEW_RESERVATIONS = `${WINDOW_PRELUDE}
hold_all(window_at(1), tonumber(ARGV[1]), 2)
return 1
`;

/**
 * A budget the store lost, rebuilt in one step (its keys share one hash tag: one slot). KEYS: the
 * spend counter, the reservation log's three keys. ARGV: spentCents, ttlMs (0: none), leaseMs,
 * then the id and cents of each reservation in flight. The counter is seeded only when absent;
 * each reservation the log lacks is taken. Answers 1 when it seeded the counter.
 */
const REBUILD_BUDGET = `${WINDOW_PRELUDE}
local seeded = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1])
  if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  seeded = 1
end
hold_all(window_at(2), tonumber(ARGV[3]), 4)
return seeded
`;

/** KEYS: counter. ARGV: by, ttlMs (> 0 sets the expiry when the key is created). */
const INCR_BY = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if created and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value
`;

function script(source: string): RedisScript {
  return Object.freeze({ source, sha1: createHash('sha1').update(source).digest('hex') });
}

export const REDIS_SCRIPTS = Object.freeze({
  windowAdmit: script(WINDOW_ADMIT),
  windowAdjust: script(WINDOW_ADJUST),
  windowState: script(WINDOW_STATE),
  incrBy: script(INCR_BY),
  admitCall: script(ADMIT_CALL),
  settleCalls: script(SETTLE_CALLS),
  renewReservations: script(RENEW_RESERVATIONS),
  rebuildBudget: script(REBUILD_BUDGET),
});
