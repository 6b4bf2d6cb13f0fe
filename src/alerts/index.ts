import type { Config } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { AlertQueue, type AlertQueueSettings } from './alert-queue.ts';
import { subscribeAlertSources } from './alert-sources.ts';
import { WebhookSender } from './webhook-sender.ts';

export interface Alerts {
  /** Stops listening and sends what is queued within `deadlineMs` (lifecycle phase `flush`). */
  close(deadlineMs: number): Promise<void>;
}

/**
 * The alert webhook (DESIGN.md section 5, Governance): budget thresholds, deployment cooldowns and
 * tripped critical extensions, POSTed signed to ALERT_WEBHOOK_URL. Null when it is not set.
 */
export function createAlerts(
  config: Pick<Config, 'alertWebhookUrl' | 'alertWebhookSecret'>,
  logger: Logger,
  settings?: Partial<AlertQueueSettings>,
): Alerts | null {
  if (config.alertWebhookUrl === undefined) return null;
  const sender = new WebhookSender({ url: config.alertWebhookUrl, secret: config.alertWebhookSecret ?? '' });
  const queue = new AlertQueue({ send: (event, signal) => sender.send(event, signal), logger, settings });
  const unsubscribe = subscribeAlertSources((event) => queue.push(event));
  return {
    close: async (deadlineMs) => {
      unsubscribe();
      await queue.close(deadlineMs);
    },
  };
}
