/**
 * LOG_FORMAT=pretty: the same log lines for a person at a terminal. Each JSON line becomes
 * `HH:MM:SS LEVEL message key=value ...`; the fields every line has (service, pid, time, level) are
 * left out. Redaction happened before (pino), so nothing here can bring a secret back.
 */

/** What pino writes to: a line at a time, and a flush before exit. */
export interface LineDestination {
  write(line: string): unknown;
  flush?(done: (error?: Error) => void): void;
}

const SKIPPED = new Set(['service', 'pid', 'time', 'level', 'msg']);

export function prettyDestination(inner: LineDestination): LineDestination {
  return {
    write: (chunk: string) => inner.write(prettyLine(chunk)),
    flush: (done) => (inner.flush === undefined ? done() : inner.flush(done)),
  };
}

export function prettyLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof line.time === 'string' ? line.time.slice(11, 19) : '';
  const level = String(line.level ?? '')
    .toUpperCase()
    .padEnd(5);
  const fields = Object.entries(line)
    .filter(([name]) => !SKIPPED.has(name))
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${[time, level, String(line.msg ?? ''), ...fields].join(' ')}\n`;
}
