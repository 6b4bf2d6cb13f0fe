import type { Credential } from './credentials.ts';

/** What a key and a team both have: a model scope, rate limits and a budget (DESIGN.md section 5, Governance). */
export interface LimitHolder {
  id: string;
  /** Public model names; `"*"` allows every model. */
  allowedModels: readonly string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  /** Calendar period of the budget in UTC (limits/budget-period.ts); null: a lifetime budget. */
  budgetPeriod: 'daily' | 'weekly' | 'monthly' | null;
  /** When reset-spend last started a new budget period (ms since the epoch); null when never. */
  budgetResetAtMs: number | null;
}

/** A virtual key as the hot path sees it (DESIGN.md section 5, Virtual key). */
export interface VirtualKey extends LimitHolder {
  id: string;
  name: string;
  /** Public model names; `"*"` allows every model. */
  allowedModels: readonly string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  /** Spend in the database when the key was loaded; seeds the hot-path budget counter. */
  spendCents: number;
  enabled: boolean;
  expiresAt: Date | null;
  /** Default tags of the key's calls, merged after the call's own. */
  tags: readonly string[];
  /** The key's team, whose scope and limits apply too; null without one. */
  team: LimitHolder | null;
}

/** Who is calling: the master key or a virtual key. */
export type Principal = { kind: 'master' } | { kind: 'virtual'; key: VirtualKey };

/** Looks up a virtual key by its secret; null when unknown. Implementations cache (issue: admin). */
export interface VirtualKeyResolver {
  resolve(credential: Credential): Promise<VirtualKey | null>;
}

/** True when `principal` may call `publicModel` (SPEC.md: allowedModels scope). */
export function mayUseModel(principal: Principal, publicModel: string): boolean {
  if (principal.kind === 'master') return true;
  const { key } = principal;
  return (
    allows(key.allowedModels, publicModel) &&
    (key.team === null || allows(key.team.allowedModels, publicModel))
  );
}

/** The models a key in `team` may call: the intersection of their scopes (`"*"`: every model). */
export function modelsInForce(key: readonly string[], team: readonly string[] | null): readonly string[] {
  if (team === null || team.includes('*')) return key;
  if (key.includes('*')) return team;
  return key.filter((model) => team.includes(model));
}

/** A team's key may call only what both allow: the intersection of their scopes. */
function allows(allowed: readonly string[], publicModel: string): boolean {
  return allowed.includes('*') || allowed.includes(publicModel);
}

/** Disabled or expired keys are refused like unknown ones (401). */
export function isKeyUsable(key: VirtualKey, nowMs: number): boolean {
  return key.enabled && (key.expiresAt === null || key.expiresAt.getTime() > nowMs);
}
