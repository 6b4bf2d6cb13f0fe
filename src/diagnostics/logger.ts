import { type Logger, pino } from 'pino';
import { BatchedLineWriter } from './batched-line-writer.ts';
import { isoTime } from './iso-time.ts';
import { type LineDestination, prettyDestination } from './pretty-lines.ts';
import { isCredentialParameter, REDACTED, scrubProcessSecrets, scrubSecretText } from './scrub-secrets.ts';

export type { Logger };

/**
 * Paths pino censors wherever they appear in a logged object: credentials of every kind, so a
 * careless `log.info({ headers })` cannot leak one (SPEC.md: no secret in a log line). The
 * wildcards make pino walk these paths for every value of every line; the one line written per
 * request, the access line, is fixed-shape and skips them (access-log.ts).
 */
const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'x-api-key',
  '*["x-api-key"]',
  '*.headers["x-api-key"]',
  'api-key',
  '*["api-key"]',
  'apiKey',
  '*.apiKey',
  'masterKey',
  '*.masterKey',
  'key',
  '*.key',
];

/**
 * stdout written asynchronously and in batches: lines collect until `BATCH_CHARS` are queued or
 * `BATCH_MS` passed, then go out in one write. A write per line (one threadpool round trip each)
 * cost the gateway more CPU than any pipeline stage under load (docs/decisions/hot-path.md). Whoever
 * exits the process calls `exitAfterFlush`; a plain exit also writes what is queued, so only a
 * SIGKILL can lose the last `BATCH_MS` of lines. One writer per process: stdout is one descriptor.
 */
const BATCH_CHARS = 64 * 1024;
const BATCH_MS = 100;
const MAX_QUEUED_CHARS = 16 * 1024 * 1024;

let stdout: BatchedLineWriter | undefined;

function stdoutDestination(): BatchedLineWriter {
  stdout ??= new BatchedLineWriter(1, {
    batchChars: BATCH_CHARS,
    maxDelayMs: BATCH_MS,
    maxQueuedChars: MAX_QUEUED_CHARS,
  });
  return stdout;
}

/** Flushes queued log lines, then exits with `code`. */
export function exitAfterFlush(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}

/** LOG_FORMAT: `json` (SPEC.md, Events), or `pretty` for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT unset: pretty for a person at a terminal, JSON for everything else (a pipe, a collector). */
export function resolveLogFormat(
  configured: LogFormat | undefined,
  stream: { isTTY?: boolean } = process.stdout,
): LogFormat {
  return configured ?? (stream.isTTY === true ? 'pretty' : 'json');
}

/** JSON logs, one object per line, on stdout (SPEC.md, Events); `pretty` renders each line for people. */
export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  format: LogFormat = 'json',
): Logger {
  const lines: LineDestination = destination ?? stdoutDestination();
  const written = format === 'pretty' ? prettyDestination(lines) : lines;
  const logger = pino(
    {
      level,
      base: BASE,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: timeMember,
      formatters: { level: (label) => ({ level: label }) },
      // The master key's value, wherever a line holds it (scrub-secrets.ts, rememberProcessSecret).
      hooks: { streamWrite: scrubProcessSecrets },
    },
    // pino's own type asks for a stream; it only ever calls write and flush.
    written as NodeJS.WritableStream,
  );
  DESTINATIONS.set(logger, written);
  return logger;
}

const BASE = { service: 'switchyard', pid: process.pid };

/** A line's time member, as every line of `createLogger`'s writes it after its level. */
function timeMember(): string {
  return `,"time":"${isoTime(Date.now())}"`;
}

/** What every info line of `createLogger`'s starts with after its time, as pino writes the base. */
const INFO_BASE = `,"service":${JSON.stringify(BASE.service)},"pid":${BASE.pid}`;

/** Each logger `createLogger` made, and where it writes its lines. */
const DESTINATIONS = new WeakMap<Logger, LineDestination>();

/**
 * A writer of one fixed-shape `info` line whose own members the caller serialized (`"name":value`
 * pairs, comma-separated, then `msg`'s): the line is the one pino would write for them, with the
 * same head (level, time, service, pid), to the same destination, and only when `info` is on.
 * For the access line, written once per request: pino's serialization of an object of five
 * fields cost more than the rest of the line's work (docs/decisions/hot-path.md, The access line
 * written whole). The caller's values must already be clear of secrets (scrub-secrets.ts): the
 * logger's own scrub of the whole line does not run here.
 */
export function infoLineWriter(logger: Logger): (members: string) => void {
  const destination = DESTINATIONS.get(logger);
  if (destination === undefined) throw new Error('infoLineWriter needs a logger made by createLogger');
  return (members) => {
    if (!logger.isLevelEnabled('info')) return;
    destination.write(`{"level":"info"${timeMember()}${INFO_BASE},${members}}\n`);
  };
}

/**
 * A URL fit for a log line: the value of every query parameter named like a credential goes, by
 * its decoded name (`api%5Fkey` and `%61pi_key` are `api_key` to the query parser, so they
 * authenticate), and any value shaped like a credential or holding the master key goes whatever
 * its name (scrub-secrets.ts).
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  let changed = false;
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    const cleanName = scrubProcessSecrets(scrubSecretText(name));
    // Decoded here, so the master key is found however its characters were percent-encoded.
    const cleanValue = isCredentialParameter(name) ? REDACTED : scrubProcessSecrets(scrubSecretText(value));
    changed ||= cleanName !== name || cleanValue !== value;
    kept.append(cleanName, cleanValue);
  }
  return changed ? `${url.slice(0, query)}?${kept.toString()}` : url;
}
