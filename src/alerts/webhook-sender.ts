import { scrubSecretText } from '../diagnostics/scrub-secrets.ts';
import type { AlertEvent } from './alert-event.ts';
import { SIGNATURE_HEADER, signatureOf } from './webhook-signature.ts';

export interface WebhookTarget {
  /** ALERT_WEBHOOK_URL; may itself be a secret (a token in its path or query): never logged. */
  url: string;
  secret: string;
}

/** Why one delivery attempt failed: the receiver's status, or what went wrong on the way. */
export type AttemptFailure = { status: number } | { error: string };

/** POSTs events to the webhook, one per request, signed. */
export class WebhookSender {
  readonly #target: WebhookTarget;

  constructor(target: WebhookTarget) {
    this.#target = target;
  }

  /** One attempt; answers null when the receiver took it (2xx), the failure otherwise. Never throws. */
  async send(event: AlertEvent, signal: AbortSignal): Promise<AttemptFailure | null> {
    const body = JSON.stringify(event);
    try {
      const response = await fetch(this.#target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signatureOf(this.#target.secret, body),
        },
        body,
        // A redirect would turn the POST into a GET elsewhere: the receiver must be addressed directly.
        redirect: 'manual',
        signal,
      });
      await response.body?.cancel();
      return response.status >= 200 && response.status < 300 ? null : { status: response.status };
    } catch (error) {
      return { error: this.#describe(error) };
    }
  }

  /** The failure's code and message, with the URL and the secret taken out wherever they appear. */
  #describe(error: unknown): string {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const code = (cause as { code?: unknown }).code;
    const message = cause instanceof Error ? cause.message : String(cause);
    const text = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
    return scrubSecretText(text, [this.#target.url, this.#target.secret]);
  }
}
