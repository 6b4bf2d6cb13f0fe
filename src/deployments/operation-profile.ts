import type { Operation, Transport } from '../providers/types.ts';
import type { DeploymentProfile, ParamRule } from './deployment.ts';

/** A request parameter outside what a deployment's profile allows. */
export interface ParamViolation {
  param: string;
  rule: ParamRule;
}

/**
 * True when the deployment's profile lets `operation` use `transport`. A deployment without a
 * profile, or whose profile names no transports for the operation, allows what its provider can
 * do (validated when the deployment was saved); one whose profile omits the operation serves none.
 */
export function profileAllowsTransport(
  profile: DeploymentProfile | null,
  operation: Operation,
  transport: Transport,
): boolean {
  if (profile === null) return true;
  const entry = profile.operations[operation];
  if (entry === undefined) return false;
  return entry.transports === undefined || entry.transports.includes(transport);
}

/**
 * The first parameter of `body` outside the profile's allowed values for `operation` (a list:
 * the value is one of them; a range: a number within it), or null when all are allowed. Absent
 * and null parameters are not checked: the provider's default applies. For a router that turns a
 * violation into 400 `unsupported_parameter` naming `param` (STYLE.md point 4: never a clamp).
 */
export function findParamViolation(
  profile: DeploymentProfile | null,
  operation: Operation,
  body: Readonly<Record<string, unknown>>,
): ParamViolation | null {
  const params = profile?.operations[operation]?.params;
  if (params === undefined) return null;
  for (const [param, rule] of Object.entries(params)) {
    const value = body[param];
    if (value === undefined || value === null) continue;
    if (!allows(rule, value)) return { param, rule };
  }
  return null;
}

function allows(rule: ParamRule, value: unknown): boolean {
  if (Array.isArray(rule)) return (rule as readonly unknown[]).includes(value);
  const range = rule as { min?: number; max?: number };
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  return (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max);
}

/** The allowed values of a rule in words, for the public message of an `unsupported_parameter`. */
export function describeParamRule(rule: ParamRule): string {
  if (Array.isArray(rule))
    return `one of ${(rule as readonly unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  const range = rule as { min?: number; max?: number };
  if (range.min !== undefined && range.max !== undefined) return `between ${range.min} and ${range.max}`;
  return range.min !== undefined ? `at least ${range.min}` : `at most ${range.max}`;
}
