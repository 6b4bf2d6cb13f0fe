import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Candidate } from '../deployments/candidate-pools.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CooldownTracker } from './cooldown-tracker.ts';
import type { DeploymentLimits, LimitDecision } from './deployment-limits.ts';
import { DeploymentPicker, type PickRequest } from './deployment-picker.ts';
import type { InFlightTracker } from './in-flight-tracker.ts';
import type { LatencyTracker } from './latency-tracker.ts';
import { routerSettingsSchema } from './router-settings-schema.ts';

/** Only the fields the picker reads: id and weight. */
function member(id: string, weight = 1): Candidate {
  return { deployment: { id, weight } } as unknown as Candidate;
}

interface Fakes {
  cooling?: Record<string, number>;
  /** Deployments over their own limits, with the wait they ask for. */
  limited?: Record<string, number>;
  random: () => number;
}

/** A picker over in-memory cooldowns and limits; `synced` lists the cooldown reads it asked for. */
function picker(fakes: Fakes) {
  const synced: string[] = [];
  const admitted: string[] = [];
  const cooldowns = {
    sync: (id: string) => {
      synced.push(id);
      return null;
    },
    remainingMs: (id: string) => fakes.cooling?.[id] ?? 0,
  } as unknown as CooldownTracker;
  const limits = {
    admit: async (deployment: { id: string }): Promise<LimitDecision> => {
      admitted.push(deployment.id);
      const waitMs = fakes.limited?.[deployment.id];
      return waitMs === undefined ? { admitted: true } : { admitted: false, retryAfterMs: waitMs };
    },
  } as unknown as DeploymentLimits;
  const unused = {} as InFlightTracker & LatencyTracker;
  const instance = new DeploymentPicker({
    cooldowns,
    limits,
    inFlight: unused,
    latency: unused,
    random: fakes.random,
  });
  return { instance, synced, admitted };
}

function request(fields: Partial<PickRequest> = {}): PickRequest {
  return {
    settings: routerSettingsSchema.parse({}),
    tried: new Set(),
    excluded: new Set(),
    attemptId: 'req:1',
    tokens: () => 0,
    ...fields,
  };
}

const picked = (pick: Awaited<ReturnType<DeploymentPicker['pick']>>) =>
  pick.kind === 'picked' ? pick.candidate.deployment.id : pick.kind;

describe('DeploymentPicker, the first pick under weighted', () => {
  const pool = [member('a', 1), member('b', 2), member('c', 1)];

  it('draws by weight from the running sums, reading only the drawn cooldown', async () => {
    for (const [point, expected] of [
      [0, 'a'],
      [0.24, 'a'],
      [0.25, 'b'],
      [0.74, 'b'],
      [0.75, 'c'],
      [0.999, 'c'],
    ] as const) {
      const { instance, synced } = picker({ random: () => point });
      assert.equal(picked(await instance.pick(pool, request())), expected, `random ${point}`);
      assert.deepEqual(synced, [expected]);
    }
  });

  it('a drawn member that is cooling: drawn again among the others, never picked', async () => {
    const randoms = [0.3, 0.3];
    const { instance } = picker({ cooling: { b: 10_000 }, random: () => randoms.shift() ?? 0 });
    // 0.3 of 4 lands on b; among a and c (weights 1 and 1), 0.3 of 2 lands on a.
    assert.equal(picked(await instance.pick(pool, request())), 'a');
  });

  it('a drawn member over its own limits: the others are tried, and its wait counts', async () => {
    const { instance, admitted } = picker({ limited: { b: 4_000, a: 9_000, c: 7_000 }, random: () => 0.3 });
    const pick = await instance.pick(pool, request());
    assert.equal(pick.kind, 'unavailable');
    assert.equal(admitted.filter((id) => id === 'b').length, 1, 'b is asked once');
    assert.ok(pick.kind === 'unavailable' && pick.error instanceof GatewayError);
    assert.equal(pick.error.code, 'rate_limit_exceeded');
    assert.equal(pick.error.retryAfterSeconds, 4, "the earliest wait is the drawn member's");
  });

  it('the odds of a pool with a cooling member are those of a draw among the others', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return (seed - 1) / 2_147_483_646;
    };
    const { instance } = picker({ cooling: { a: 10_000 }, random });
    const counts = new Map<string, number>();
    for (let i = 0; i < 6_000; i++) {
      const id = picked(await instance.pick(pool, request()));
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    assert.equal(counts.get('a'), undefined);
    const share = (counts.get('b') ?? 0) / 6_000;
    assert.ok(Math.abs(share - 2 / 3) < 0.03, `b drawn ${share} of the time, expected 2/3`);
  });
});
