import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { type AlertEvent, alertEvent } from './alert-event.ts';

/**
 * Turns the publications of the budget, the router and the extension runtime into alert events
 * handed to `enqueue`, which must not block: a publisher runs its subscribers synchronously, on
 * the call's path. Returns the unsubscribe function.
 */
export function subscribeAlertSources(enqueue: (event: AlertEvent) => void): () => void {
  const stops = [
    DIAGNOSTICS.budgetThreshold.subscribe((m) =>
      enqueue(
        alertEvent('budget.threshold', {
          scope: m.scope,
          id: m.id,
          percent: m.percent,
          period: m.period,
          periodStart: m.periodStart,
          spendCents: m.spendCents,
          budgetCents: m.budgetCents,
        }),
      ),
    ),
    DIAGNOSTICS.budgetBoundExceeded.subscribe((m) => enqueue(alertEvent('budget.bound_exceeded', { ...m }))),
    DIAGNOSTICS.routerCooldown.subscribe((m) =>
      enqueue(
        alertEvent('deployment.cooldown', {
          deploymentId: m.deploymentId,
          publicModel: m.publicModel,
          provider: m.provider,
          reason: m.reason,
          until: new Date(m.untilMs).toISOString(),
        }),
      ),
    ),
    DIAGNOSTICS.extensionTripped.subscribe((m) => {
      // A tripped non-critical extension is skipped and calls go on: nothing an operator must act on.
      if (m.critical) {
        enqueue(
          alertEvent('extension.tripped', { extensionId: m.extensionId, critical: true, reason: m.reason }),
        );
      }
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
