import { infoLineWriter, type Logger, redactUrl } from '../diagnostics/logger.ts';
import { scrubProcessSecrets } from '../diagnostics/scrub-secrets.ts';

/** What the access line says about a request; nothing else can reach it. */
export interface AccessLine {
  requestId: string;
  method: string;
  /** The raw URL; its credential query parameters are redacted here (redactUrl). */
  url: string;
  status: number;
  ms: number;
}

/**
 * Writes the one access line per request (`request completed`), serialized here, not by pino
 * (logger.ts, infoLineWriter): pino's serialization of the line's object, and its scrub of the
 * whole line for the process's secrets, cost more than the rest of the request's logging. The
 * line's shape is fixed, so no redaction path can apply to it: the fields are copied one by one,
 * the URL loses its credential values (redactUrl), and the two values a client chooses, the URL
 * and the request id, are cleared of the process's secrets (scrubProcessSecrets) before they are
 * written; the method is one Node's HTTP parser knows. Add a field only if it can never hold a
 * secret.
 */
export function createAccessLog(logger: Logger): (line: AccessLine) => void {
  const write = infoLineWriter(logger);
  return (line) => {
    const requestId = JSON.stringify(scrubProcessSecrets(line.requestId));
    const url = JSON.stringify(scrubProcessSecrets(redactUrl(line.url)));
    const ms = Number.isFinite(line.ms) ? line.ms : null;
    write(
      `"requestId":${requestId},"method":${JSON.stringify(line.method)},"url":${url},"status":${line.status},"ms":${ms},"msg":"request completed"`,
    );
  };
}
