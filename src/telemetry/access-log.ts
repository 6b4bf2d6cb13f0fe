import { type Logger, redactUrl } from '../diagnostics/logger.ts';

/** What the access line says about a request; nothing else can reach it. */
export interface AccessLine {
  requestId: string;
  method: string;
  /** The raw URL; its credential query parameters are redacted here (redactUrl). */
  url: string;
  status: number;
  ms: number;
}

/** pino redaction with no paths: nothing to walk for any value. */
const NO_REDACTION = { paths: [] };

/**
 * Writes the one access line per request (`request completed`). The gateway's logger redacts
 * with wildcard paths (logger.ts), which makes pino walk every path for every value of a line,
 * about ten times the cost of the line itself; this line goes through a child without
 * redaction instead. That is safe because its shape is fixed: the fields are copied one by one,
 * the URL loses its credential values, and the request id is visible ASCII of our own or the
 * client's choosing (src/server/request-id.ts). Add a field only if it can never hold a secret.
 */
export function createAccessLog(logger: Logger): (line: AccessLine) => void {
  const access = logger.child({}, { redact: NO_REDACTION });
  return (line) => {
    access.info(
      {
        requestId: line.requestId,
        method: line.method,
        url: redactUrl(line.url),
        status: line.status,
        ms: line.ms,
      },
      'request completed',
    );
  };
}
