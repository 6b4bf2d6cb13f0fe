import type {
  BudgetBoundExceededEvent,
  BudgetThresholdEvent,
  ExtensionTrippedEvent,
} from '../diagnostics/diagnostics-channels.ts';
import { recordId } from '../records/record-id.ts';

/** A key or team crossing 80% or 100% of its budget: the budget's publication, as published. */
export type BudgetThresholdData = BudgetThresholdEvent;

export interface DeploymentCooldownData {
  deploymentId: string;
  publicModel: string;
  provider: string;
  /** The failure class that reached the cooldown threshold (errors/error-classes.ts). */
  reason: string;
  /** When the deployment goes back into its pool (RFC 3339). */
  until: string;
}

/** An upstream billed a call past the worst case its budget reserved, as published. */
export type BudgetBoundExceededData = BudgetBoundExceededEvent;

export type ExtensionTrippedData = Pick<ExtensionTrippedEvent, 'extensionId' | 'critical' | 'reason'>;

interface AlertDataByType {
  'budget.threshold': BudgetThresholdData;
  'budget.bound_exceeded': BudgetBoundExceededData;
  'deployment.cooldown': DeploymentCooldownData;
  'extension.tripped': ExtensionTrippedData;
}

export type AlertType = keyof AlertDataByType;

/**
 * One webhook body. The subject's own fields sit under `data`, so that a budget event's key or
 * team `id` and the event's `id` never share a name.
 */
export type AlertEvent = {
  [T in AlertType]: {
    /** `evt_…`, unique; a receiver that sees it twice (a retry whose answer was lost) skips it. */
    id: string;
    type: T;
    /** When the gateway saw it happen (RFC 3339). */
    time: string;
    data: AlertDataByType[T];
  };
}[AlertType];

export function alertEvent<T extends AlertType>(
  type: T,
  data: AlertDataByType[T],
  at = new Date(),
): AlertEvent {
  return { id: recordId('evt'), type, time: at.toISOString(), data } as AlertEvent;
}
