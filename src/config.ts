/**
 * Environment -> typed configuration, validated once at start (DESIGN.md section 3). A bad value
 * stops the start with one line naming the variable and the rule. Defaults are documented in
 * docs/configuration.md; keep the two in step.
 */

import { cpus } from 'node:os';
import type { RedisClusterNodes } from './cache/redis-cluster-connection.ts';
import { parseClusterNodes, REDIS_CLUSTER_NODES_FORM } from './cache/redis-cluster-nodes.ts';
import { REDIS_URL_FORM, redisUrlProblem } from './cache/redis-url.ts';
import type { LogFormat } from './diagnostics/logger.ts';
import { ConfigError } from './errors/config-error.ts';
import type { UpstreamErrorMessages } from './errors/render-error.ts';

export type Variant = 'a' | 'b';

/** How each worker's V8 heap is sized (server/worker-heap.ts; docs/configuration.md, Memory). */
export interface WorkerHeap {
  /** `--max-semi-space-size` of each worker, in MiB; 0 leaves Node's default. */
  semiSpaceMb: number;
  /** `--initial-old-space-size` of each worker, in MiB: its old generation's limit until the first full collection; 0 leaves V8's own. */
  initialOldSpaceMb: number;
  /** V8's `--heap-growing-percent` in each worker: the old generation's growth over what survived; 0 leaves V8's own. */
  growthPercent: number;
  /** glibc's `MALLOC_ARENA_MAX` in each worker's environment; 0 leaves the C library's own. */
  mallocArenas: number;
  /**
   * V8's `--external-memory-accounted-in-global-limit` in each worker: memory outside the heap
   * (buffers, sockets' reads) counts against the heap's limit instead of starting a full
   * collection every 64 MB of its own.
   */
  externalMemoryInHeapLimit: boolean;
}

export interface Config {
  variant: Variant;
  port: number;
  host: string;
  logLevel: string;
  /** LOG_FORMAT; unset: chosen by whether stdout is a terminal (resolveLogFormat). */
  logFormat: LogFormat | undefined;
  /** Unset: embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Unset: in-process cache store. */
  redisUrl: string | undefined;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES), in place of `redisUrl`. */
  redisClusterNodes: RedisClusterNodes | undefined;
  redisKeyPrefix: string;
  dataDir: string;
  /** Unset only in embedded mode, where one is generated under dataDir. */
  masterKey: string | undefined;
  credentialsEncryptionKey: string | undefined;
  encryptionKeyring: string | undefined;
  activeEncryptionKeyId: string | undefined;
  workers: number;
  /** Each worker's V8 heap (server/worker-heap.ts). */
  workerHeap: WorkerHeap;
  dbPoolMax: number;
  dependencyTimeoutMs: number;
  shutdownTimeoutMs: number;
  bodyLimitBytes: number;
  /** Bytes of large request bodies (over 1 MiB) held at once by one process (server/body-admission.ts). */
  maxBodyBytesInFlight: number;
  http: HttpServerLimits;
  upstreamMaxAnswerBytes: number;
  keyCacheTtlMs: number;
  requestLogPartitionJobIntervalMs: number;
  requestLogPartitionCreateDays: number;
  requestLogPartitionRetentionDays: number;
  responseStateGcIntervalMs: number;
  responsesStateRetentionDays: number;
  /** RESPONSES_STORE_DEFAULT: what an absent `store` means on `POST /v1/responses` (OpenAI's default: true). */
  responsesStoreDefault: boolean;
  observabilityMetadataRetentionDays: number;
  observabilityPayloadRetentionDays: number;
  /** AUDIT_RETENTION_DAYS: audit_events (both variants). */
  auditRetentionDays: number;
  maxStringLengthPromptInDb: number;
  /** Variant B: share of successful calls whose payload is sampled (failures always are). */
  observabilityPayloadSampleRate: number;
  responseCacheTtlMs: number;
  responseCacheMaxEntryBytes: number;
  otelEnabled: boolean;
  otelExporterOtlpEndpoint: string | undefined;
  otelLogPayloads: boolean;
  extensionsDir: string | undefined;
  extensionBreakerThreshold: number;
  /** `generic` (default): SPEC.md's generic public messages; `passthrough`: the upstream's, scrubbed. */
  upstreamErrorMessages: UpstreamErrorMessages;
  /** Unset: no alerts are sent. */
  alertWebhookUrl: string | undefined;
  /** Signs every alert body; required with alertWebhookUrl. */
  alertWebhookSecret: string | undefined;
  /** CORS_ORIGINS: browser origins allowed on `/v1` (`'*'`: any); unset: no CORS headers at all. */
  corsOrigins: CorsOrigins | undefined;
  /** CONFIG_FILE: a configuration file applied at start (docs/configuration.md, Configuration file). */
  configFile: string | undefined;
}

/** Origins a browser may call `/v1` from: a list of exact origins, or any. */
export type CorsOrigins = '*' | readonly string[];

/** How long the HTTP server waits on a client, and how much one connection may carry. */
export interface HttpServerLimits {
  /** Inactivity on a socket; lifted while an inference call waits on its upstream. */
  connectionTimeoutMs: number;
  /** From the connection (or the previous answer) to the end of the request's headers. */
  headersTimeoutMs: number;
  /** From the start of a request to the end of its body; the answer is not part of it. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0: no cap. */
  maxRequestsPerSocket: number;
}

/** A configuration error: its message is the one line printed before the process exits. */
type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
    throw new ConfigError(`${name} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(`${name} must be a number between 0 and 1 (got "${raw}")`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

/** A REDIS_URL node-redis can use; the complaint says what is wrong, never the URL (it may hold a password). */
function redisUrlOf(env: Env): string | undefined {
  const raw = text(env, 'REDIS_URL');
  if (raw === undefined) return undefined;
  const problem = redisUrlProblem(raw);
  if (problem !== undefined) throw new ConfigError(`REDIS_URL ${problem}; the form is ${REDIS_URL_FORM}`);
  return raw;
}

/** REDIS_CLUSTER_NODES, checked as REDIS_URL is; the two name one cache store, so not both. */
function redisClusterNodesOf(env: Env): RedisClusterNodes | undefined {
  const raw = text(env, 'REDIS_CLUSTER_NODES');
  if (raw === undefined) return undefined;
  if (text(env, 'REDIS_URL') !== undefined) {
    throw new ConfigError('REDIS_URL and REDIS_CLUSTER_NODES are both set: set one (a server, or a cluster)');
  }
  const nodes = parseClusterNodes(raw);
  if (typeof nodes === 'string') {
    throw new ConfigError(`REDIS_CLUSTER_NODES ${nodes}; the form is ${REDIS_CLUSTER_NODES_FORM}`);
  }
  return nodes;
}

/**
 * `*`, or a comma-separated list of origins (`https://app.example.com`): scheme, host and port
 * only, as a browser sends them in `Origin`, so the comparison is exact.
 */
function corsOriginsOf(env: Env): CorsOrigins | undefined {
  const raw = text(env, 'CORS_ORIGINS');
  if (raw === undefined) return undefined;
  if (raw.trim() === '*') return '*';
  const origins = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const origin of origins) {
    if (originOf(origin) !== origin) {
      throw new ConfigError(
        `CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.com (no path, no trailing slash; got "${origin}")`,
      );
    }
  }
  if (origins.length === 0) throw new ConfigError('CORS_ORIGINS must be * or list at least one origin');
  return origins;
}

/** The origin of an http(s) URL as a browser writes it, or undefined. */
function originOf(value: string): string | undefined {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

function variantOf(env: Env): Variant {
  const raw = text(env, 'GATEWAY_VARIANT') ?? 'b';
  if (raw !== 'a' && raw !== 'b') throw new ConfigError(`GATEWAY_VARIANT must be a or b (got "${raw}")`);
  return raw;
}

function workersOf(env: Env): number {
  const raw = text(env, 'WORKERS');
  if (raw === 'auto') return cpus().length;
  return integer(env, 'WORKERS', 1, 1, 256);
}

/** The master key rule of SPEC.md (Authentication; Limits): 8 characters in A, 32 in B. */
export function masterKeyMinLength(variant: Variant): number {
  return variant === 'a' ? 8 : 32;
}

/**
 * Variant B: different characters a master key must hold. Length alone let 32 identical
 * characters through; a random key of 32 hex digits holds about 15, so 8 refuses only keys made
 * by hand from a few characters.
 */
export const MASTER_KEY_MIN_DISTINCT_CHARS = 8;

function checkMasterKey(masterKey: string | undefined, variant: Variant): void {
  if (masterKey === undefined) return;
  const min = masterKeyMinLength(variant);
  if (masterKey.length < min) {
    throw new ConfigError(`MASTER_KEY must be at least ${min} characters (GATEWAY_VARIANT=${variant})`);
  }
  if (variant === 'b' && new Set(masterKey).size < MASTER_KEY_MIN_DISTINCT_CHARS) {
    throw new ConfigError(
      `MASTER_KEY must hold at least ${MASTER_KEY_MIN_DISTINCT_CHARS} different characters (GATEWAY_VARIANT=b): use a random key`,
    );
  }
}

/** Secrets must come from the environment once a real database is configured (DESIGN.md section 3). */
function checkSecretsPresent(config: Config): void {
  if (config.databaseUrl === undefined) return;
  const where = '(required when DATABASE_URL is set)';
  if (config.masterKey === undefined) throw new ConfigError(`MASTER_KEY must be set ${where}`);
  if (config.variant === 'a' && config.credentialsEncryptionKey === undefined) {
    throw new ConfigError(`CREDENTIALS_ENCRYPTION_KEY must be set ${where} (GATEWAY_VARIANT=a)`);
  }
  if (config.variant === 'b' && config.encryptionKeyring === undefined) {
    throw new ConfigError(`ENCRYPTION_KEYRING must be set ${where} (GATEWAY_VARIANT=b)`);
  }
  if (config.variant === 'b' && config.activeEncryptionKeyId === undefined) {
    throw new ConfigError(`ACTIVE_ENCRYPTION_KEY_ID must be set ${where} (GATEWAY_VARIANT=b)`);
  }
}

/** Shorter secrets make the signature guessable offline from one signed body. */
const MIN_ALERT_SECRET_LENGTH = 16;

/** An alert the receiver cannot authenticate would invite forged ones: the URL needs a secret. */
function checkAlertWebhook(config: Config): void {
  if (config.alertWebhookUrl === undefined) return;
  const { username, password } = new URL(config.alertWebhookUrl);
  if (username !== '' || password !== '') {
    // fetch refuses such a URL, so every alert would fail; and the refusal quotes the URL.
    throw new ConfigError(
      'ALERT_WEBHOOK_URL must not hold credentials (user:password@); put a token in its path or query',
    );
  }
  const secret = config.alertWebhookSecret;
  if (secret === undefined || secret.length < MIN_ALERT_SECRET_LENGTH) {
    throw new ConfigError(
      `ALERT_WEBHOOK_SECRET must be set, at least ${MIN_ALERT_SECRET_LENGTH} characters, when ALERT_WEBHOOK_URL is set`,
    );
  }
}

const DAY_MS = 86_400_000;

export function loadConfig(env: Env = process.env): Config {
  const variant = variantOf(env);
  const config: Config = {
    variant,
    port: integer(env, 'PORT', 4000, 0, 65_535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    logLevel: logLevelOf(env),
    logFormat:
      text(env, 'LOG_FORMAT') === undefined ? undefined : choice(env, 'LOG_FORMAT', LOG_FORMATS, 'json'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: redisUrlOf(env),
    redisClusterNodes: redisClusterNodesOf(env),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'sy:',
    dataDir: text(env, 'DATA_DIR') ?? './.switchyard',
    masterKey: text(env, 'MASTER_KEY'),
    credentialsEncryptionKey: text(env, 'CREDENTIALS_ENCRYPTION_KEY'),
    encryptionKeyring: text(env, 'ENCRYPTION_KEYRING'),
    activeEncryptionKeyId: text(env, 'ACTIVE_ENCRYPTION_KEY_ID'),
    workers: workersOf(env),
    workerHeap: {
      semiSpaceMb: integer(env, 'WORKER_SEMI_SPACE_MB', 16, 0, 1024),
      initialOldSpaceMb: integer(env, 'WORKER_INITIAL_OLD_SPACE_MB', 64, 0, 65_536),
      growthPercent: integer(env, 'WORKER_HEAP_GROWTH_PERCENT', 0, 0, 1000),
      mallocArenas: integer(env, 'WORKER_MALLOC_ARENAS', 2, 0, 1024),
      externalMemoryInHeapLimit: boolean(env, 'WORKER_EXTERNAL_MEMORY_IN_HEAP_LIMIT', true),
    },
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    dependencyTimeoutMs: integer(env, 'DEPENDENCY_TIMEOUT_MS', 1000, 50, 60_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 0),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 26_214_400, 1024),
    maxBodyBytesInFlight: integer(env, 'MAX_BODY_BYTES_IN_FLIGHT', 67_108_864, 1_048_576),
    http: httpLimitsOf(env),
    upstreamMaxAnswerBytes: integer(env, 'UPSTREAM_MAX_ANSWER_BYTES', 67_108_864, 1024, 1_073_741_824),
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 60_000, 0),
    requestLogPartitionJobIntervalMs: integer(env, 'REQUEST_LOG_PARTITION_JOB_INTERVAL_MS', 3_600_000, 1000),
    requestLogPartitionCreateDays: integer(env, 'REQUEST_LOG_PARTITION_CREATE_DAYS', 3, 0, 365),
    requestLogPartitionRetentionDays: integer(env, 'REQUEST_LOG_PARTITION_RETENTION_DAYS', 30, 1),
    responseStateGcIntervalMs: integer(env, 'RESPONSE_STATE_GC_INTERVAL_MS', 600_000, 1000),
    responsesStateRetentionDays: integer(env, 'RESPONSES_STATE_RETENTION_DAYS', 30, 1),
    responsesStoreDefault: boolean(env, 'RESPONSES_STORE_DEFAULT', true),
    observabilityMetadataRetentionDays: integer(env, 'OBSERVABILITY_METADATA_RETENTION_DAYS', 30, 1),
    observabilityPayloadRetentionDays: integer(env, 'OBSERVABILITY_PAYLOAD_RETENTION_DAYS', 7, 1),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    maxStringLengthPromptInDb: integer(env, 'MAX_STRING_LENGTH_PROMPT_IN_DB', 2048, 0),
    observabilityPayloadSampleRate: fraction(env, 'OBSERVABILITY_PAYLOAD_SAMPLE_RATE', 0.01),
    responseCacheTtlMs: integer(env, 'RESPONSE_CACHE_TTL_MS', 0, 0, 30 * DAY_MS),
    responseCacheMaxEntryBytes: integer(
      env,
      'RESPONSE_CACHE_MAX_ENTRY_BYTES',
      1_048_576,
      1024,
      512 * 1_048_576,
    ),
    otelEnabled: boolean(env, 'OTEL_ENABLED', false),
    otelExporterOtlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    otelLogPayloads: boolean(env, 'OTEL_LOG_PAYLOADS', false),
    extensionsDir: text(env, 'EXTENSIONS_DIR'),
    extensionBreakerThreshold: integer(env, 'EXTENSION_BREAKER_THRESHOLD', 5, 1),
    upstreamErrorMessages: choice(env, 'UPSTREAM_ERROR_MESSAGES', UPSTREAM_ERROR_MESSAGE_MODES, 'generic'),
    alertWebhookUrl: url(env, 'ALERT_WEBHOOK_URL', ['http:', 'https:']),
    alertWebhookSecret: text(env, 'ALERT_WEBHOOK_SECRET'),
    corsOrigins: corsOriginsOf(env),
    configFile: text(env, 'CONFIG_FILE'),
  };
  checkMasterKey(config.masterKey, variant);
  checkSecretsPresent(config);
  checkAlertWebhook(config);
  const shared = config.redisUrl !== undefined || config.redisClusterNodes !== undefined;
  if (config.workers > 1 && (!shared || config.databaseUrl === undefined)) {
    throw new ConfigError(
      `WORKERS above 1 needs DATABASE_URL and REDIS_URL or REDIS_CLUSTER_NODES (the embedded database and cache store belong to one process; got WORKERS=${config.workers})`,
    );
  }
  return config;
}

function httpLimitsOf(env: Env): HttpServerLimits {
  const limits: HttpServerLimits = {
    connectionTimeoutMs: integer(env, 'HTTP_CONNECTION_TIMEOUT_MS', 60_000, 0, 3_600_000),
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    maxRequestsPerSocket: integer(env, 'HTTP_MAX_REQUESTS_PER_SOCKET', 1000, 0),
  };
  // Node.js refuses a header bound above the request bound: the headers are part of the request.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (got ${limits.headersTimeoutMs} > ${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

const LOG_FORMATS = ['json', 'pretty'] as const satisfies LogFormat[];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const UPSTREAM_ERROR_MESSAGE_MODES = ['generic', 'passthrough'] as const satisfies UpstreamErrorMessages[];

function logLevelOf(env: Env): string {
  return choice(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
}

/** One of `values`, or `fallback` when unset. */
function choice<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = text(env, name) ?? fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}
