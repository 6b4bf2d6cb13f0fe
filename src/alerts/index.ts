import type { Config } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import { AlertQueue, type AlertQueueSettings } from './alert-queue.ts';
import { subscribeAlertSources } from './alert-sources.ts';
import { WebhookSender } from './webhook-sender.ts';

/**
 * The alert webhook (DESIGN.md section 5, Governance): budget thresholds, deployment cooldowns and
 * tripped critical extensions, POSTed signed to ALERT_WEBHOOK_URL. A module with nothing to do
 * when it is not set. Its flush step stops listening and sends what is queued in the time left;
 * listed first, it closes after the records and spend whose settlement may still raise an alert.
 */
export function createAlerts(
  config: Pick<Config, 'alertWebhookUrl' | 'alertWebhookSecret'>,
  logger: Logger,
  settings?: Partial<AlertQueueSettings>,
): FeatureModule {
  if (config.alertWebhookUrl === undefined) return { name: 'alerts' };
  const sender = new WebhookSender({ url: config.alertWebhookUrl, secret: config.alertWebhookSecret ?? '' });
  const queue = new AlertQueue({ send: (event, signal) => sender.send(event, signal), logger, settings });
  const unsubscribe = subscribeAlertSources((event) => queue.push(event));
  const close = async (deadlineMs: number) => {
    unsubscribe();
    await queue.close(deadlineMs);
  };
  return { name: 'alerts', shutdown: [{ phase: 'flush', name: 'alert webhook', run: close }] };
}
