/** What the figures were measured on: they mean nothing without it. */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  kernel: string;
  node: string;
  /** The commit measured (`unknown` outside a git checkout), `+dirty` when the tree has changes. */
  commit: string;
  /** 1, 5 and 15 minute load averages at the start: a busy machine shows here. */
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    node: process.version,
    commit: commit(),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

function commit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() === '' ? '' : '+dirty'}`;
}
