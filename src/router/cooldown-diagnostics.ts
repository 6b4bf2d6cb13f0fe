import diagnosticsChannel from 'node:diagnostics_channel';
import type { ErrorClass } from '../errors/error-classes.ts';

/**
 * Published once per cooldown, by the replica that started it (CooldownTracker), for whoever
 * subscribes (alerts); the router neither knows nor waits for its subscribers.
 */
export const ROUTER_COOLDOWN_CHANNEL = 'switchyard:router:cooldown';

export interface DeploymentCooldownMessage {
  deploymentId: string;
  publicModel: string;
  provider: string;
  /** The failure class of the failure that reached the threshold. */
  reason: ErrorClass;
  /** When the deployment goes back into its pool, epoch ms. */
  untilMs: number;
}

const cooldownChannel = diagnosticsChannel.channel(ROUTER_COOLDOWN_CHANNEL);

export function publishCooldown(message: DeploymentCooldownMessage): void {
  if (cooldownChannel.hasSubscribers) cooldownChannel.publish(message);
}
