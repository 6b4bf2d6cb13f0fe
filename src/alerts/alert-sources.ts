import diagnosticsChannel from 'node:diagnostics_channel';
import {
  EXTENSION_TRIPPED_CHANNEL,
  type ExtensionTrippedMessage,
} from '../extensions/extension-diagnostics.ts';
import { BUDGET_THRESHOLD_CHANNEL, type BudgetThresholdMessage } from '../limits/budget-diagnostics.ts';
import { type DeploymentCooldownMessage, ROUTER_COOLDOWN_CHANNEL } from '../router/cooldown-diagnostics.ts';
import { type AlertEvent, alertEvent } from './alert-event.ts';

/** Each source channel and the event its message becomes (null: not alerted on). */
const SOURCES: ReadonlyArray<readonly [string, (message: unknown) => AlertEvent | null]> = [
  [
    BUDGET_THRESHOLD_CHANNEL,
    (message) => {
      const m = message as BudgetThresholdMessage;
      return alertEvent('budget.threshold', {
        scope: m.scope,
        id: m.id,
        percent: m.percent,
        period: m.period,
        periodStart: m.periodStart,
        spendCents: m.spendCents,
        budgetCents: m.budgetCents,
      });
    },
  ],
  [
    ROUTER_COOLDOWN_CHANNEL,
    (message) => {
      const m = message as DeploymentCooldownMessage;
      return alertEvent('deployment.cooldown', {
        deploymentId: m.deploymentId,
        publicModel: m.publicModel,
        provider: m.provider,
        reason: m.reason,
        until: new Date(m.untilMs).toISOString(),
      });
    },
  ],
  [
    EXTENSION_TRIPPED_CHANNEL,
    (message) => {
      const m = message as ExtensionTrippedMessage;
      // A tripped non-critical extension is skipped and calls go on: nothing an operator must act on.
      if (!m.critical) return null;
      return alertEvent('extension.tripped', {
        extensionId: m.extensionId,
        critical: true,
        reason: m.reason,
      });
    },
  ],
];

/**
 * Turns the publications of the budget, the router and the extension runtime into alert events
 * handed to `enqueue`, which must not block: a publisher runs its subscribers synchronously, on
 * the call's path. Returns the unsubscribe function.
 */
export function subscribeAlertSources(enqueue: (event: AlertEvent) => void): () => void {
  const listeners = SOURCES.map(([channel, toEvent]) => {
    const listener = (message: unknown) => {
      const event = toEvent(message);
      if (event !== null) enqueue(event);
    };
    diagnosticsChannel.subscribe(channel, listener);
    return [channel, listener] as const;
  });
  return () => {
    for (const [channel, listener] of listeners) diagnosticsChannel.unsubscribe(channel, listener);
  };
}
