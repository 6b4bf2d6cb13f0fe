/** What the figures were measured on: they mean nothing without it. */
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  kernel: string;
  node: string;
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
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
