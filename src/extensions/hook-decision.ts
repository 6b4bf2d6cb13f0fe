import { MAX_JSON_DEPTH, nestsDeeperThan } from '../formats/json-depth.ts';
import { type Hook, SandboxFailure } from './extension-sandbox.ts';

/** What a hook decided (DESIGN.md section 5, Extensions). */
export type HookDecision =
  | { kind: 'continue' }
  | { kind: 'body'; body: Record<string, unknown> }
  | { kind: 'response'; response: Record<string, unknown> }
  | { kind: 'reject'; status: number; message: string };

/** Longest rejection message passed on to the client. */
const MAX_REJECT_MESSAGE_CHARS = 1000;

const CONTINUE_DECISION: HookDecision = Object.freeze({ kind: 'continue' });

/**
 * Reads a hook's result; throws SandboxFailure('malformed') for anything outside the contract:
 * `beforeUpstream` may replace the body, `afterUpstream` the response, either may reject with a 4xx.
 */
export function hookDecisionOf(hook: Hook, result: unknown): HookDecision {
  if (result === undefined || result === null) return CONTINUE_DECISION;
  if (!isObject(result)) throw malformed('the hook returned neither nothing nor an object');
  const keys = Object.keys(result);
  if (keys.length !== 1)
    throw malformed('the hook returned an object without exactly one of body, response, reject');
  if ('reject' in result) return rejection(result.reject);
  if ('body' in result && hook === 'beforeUpstream') {
    if (!isObject(result.body)) throw malformed('`body` is not an object');
    return { kind: 'body', body: withinDepth(result.body, 'body') };
  }
  if ('response' in result && hook === 'afterUpstream') {
    if (!isObject(result.response)) throw malformed('`response` is not an object');
    return { kind: 'response', response: withinDepth(result.response, 'response') };
  }
  throw malformed(`${hook} may not return \`${keys[0]}\``);
}

function rejection(reject: unknown): HookDecision {
  if (!isObject(reject)) throw malformed('`reject` is not an object');
  const { status, message } = reject;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) {
    throw malformed('`reject.status` is not a 4xx status');
  }
  if (typeof message !== 'string' || message.length === 0) throw malformed('`reject.message` is not a text');
  return { kind: 'reject', status, message: message.slice(0, MAX_REJECT_MESSAGE_CHARS) };
}

/**
 * A replacement nested deeper than a client's body may be (a 5,000-level body overflowed the stack
 * of the code that walks it, a 500) is the extension's failure, as for a client's body a 400.
 */
function withinDepth(value: Record<string, unknown>, name: string): Record<string, unknown> {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH))
    throw malformed(`\`${name}\` nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string): SandboxFailure {
  return new SandboxFailure('malformed', `malformed result: ${message}`);
}
