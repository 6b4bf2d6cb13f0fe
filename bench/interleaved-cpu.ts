/**
 * CPU time per call of several running gateways, compared fairly on a shared machine: measured
 * one after the other and taken apart in time, two configurations of the same code moved 30%
 * (bench/results/HISTORY.md, stop 40), far more than the 5% the scale line asks about. So every
 * gateway serves its calls in turns of a short block each, round after round, the order reversed
 * every other round, and each one's figure is its worker's CPU over all its blocks: a slow stretch
 * of the machine falls on every gateway alike, and a major GC that comes every few seconds is
 * counted in the share of the calls that pay for it.
 */
import { Pool } from 'undici';
import { calls } from './callgrind.ts';
import { cpuSeconds } from './proc-stats.ts';
import type { BenchRequest } from './requests.ts';

export interface RoundsTarget {
  id: string;
  origin: string;
  /** The worker serving the calls (the gateway runs WORKERS=1). */
  workerPid: number;
  call: BenchRequest;
}

export interface RoundsFigure {
  id: string;
  /** Worker CPU per call over every block, µs. */
  usPerCall: number;
  /** The same per round, µs, in round order. */
  rounds: number[];
}

export interface RoundsPlan {
  warmupCalls: number;
  rounds: number;
  callsPerRound: number;
}

export async function interleavedCpu(
  targets: readonly RoundsTarget[],
  plan: RoundsPlan,
): Promise<RoundsFigure[]> {
  const pools = targets.map((target) => new Pool(target.origin, { connections: 1 }));
  try {
    for (const [index, target] of targets.entries()) await calls(pools[index], target.call, plan.warmupCalls);
    const seconds = targets.map(() => [] as number[]);
    for (let round = 0; round < plan.rounds; round++) {
      const order = targets.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const before = cpuSeconds([targets[index].workerPid]);
        await calls(pools[index], targets[index].call, plan.callsPerRound);
        seconds[index].push(cpuSeconds([targets[index].workerPid]) - before);
      }
    }
    const perCall = (s: number, n: number) => Math.round((s / n) * 1e6);
    return targets.map((target, index) => ({
      id: target.id,
      usPerCall: perCall(sum(seconds[index]), plan.rounds * plan.callsPerRound),
      rounds: seconds[index].map((s) => perCall(s, plan.callsPerRound)),
    }));
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
