/**
 * The gateway owns Responses state (DESIGN.md section 5): OpenAI and Azure are called with
 * `store: false` and the whole conversation, never with state of their own. Reasoning items then
 * carry over between turns only as `encrypted_content`, which the upstream sends when `include`
 * asks for `reasoning.encrypted_content`; a model without reasoning refuses that ask (400 "Encrypted
 * content is not supported with this model"), so it is made only where reasoning is in play: the
 * catalog knows the model reasons, the request sets `reasoning`, or its input carries reasoning items.
 * A reasoning item without `encrypted_content` cannot be sent back statelessly (the upstream would
 * look its id up in the state it does not keep), so it is left out of the input.
 */
import type { DeploymentTarget } from '../types.ts';

const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/** The upstream body of a Responses call, made stateless (a copy the adapter owns). */
export function statelessResponsesBody(
  body: Record<string, unknown>,
  target: DeploymentTarget,
): Record<string, unknown> {
  body.store = false;
  if (Array.isArray(body.input) && body.input.some(isOpaqueReasoning)) {
    body.input = body.input.filter((item) => !isOpaqueReasoning(item));
  }
  if (reasoningInPlay(body, target)) body.include = withEncryptedReasoning(body.include);
  return body;
}

/** A request's `include` list, asking for encrypted reasoning too. */
export function withEncryptedReasoning(include: unknown): unknown[] {
  const list = Array.isArray(include) ? include : [];
  return list.includes(ENCRYPTED_REASONING) ? list : [...list, ENCRYPTED_REASONING];
}

function reasoningInPlay(body: Record<string, unknown>, target: DeploymentTarget): boolean {
  if (body.reasoning != null || target.knownReasoning === true) return true;
  return Array.isArray(body.input) && body.input.some(isReasoningItem);
}

function isReasoningItem(item: unknown): boolean {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'reasoning';
}

function isOpaqueReasoning(item: unknown): boolean {
  return (
    isReasoningItem(item) && typeof (item as { encrypted_content?: unknown }).encrypted_content !== 'string'
  );
}
