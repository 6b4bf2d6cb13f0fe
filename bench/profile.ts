/**
 * Reads a V8 `.cpuprofile` (written by `node --cpu-prof`; the format of the Chrome DevTools
 * Protocol's Profiler.Profile) and ranks functions by self time, counting only the samples taken
 * while the load ran, so start-up (module loading, migrations) does not drown the hot path.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one `process.hrtime` reads. */
  startTime: number;
  samples: number[];
  /** Microseconds between a sample and the one before it. */
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  location: string;
  selfMs: number;
  /** Share of the busy (non-idle) time in the window. */
  selfPercent: number;
}

export interface ProfileSummary {
  /** The scenario that ran under the profiler. */
  scenario: 'c' | 'd' | 'e';
  file: string;
  /** The load window on the profile's clock, to read the file again over the same samples. */
  window: { fromUs: number; toUs: number };
  windowMs: number;
  busyMs: number;
  /** 2xx answers during the window. */
  calls: number;
  /**
   * The worker's CPU time (user + system, all its threads) per thousand calls. The profile's busy
   * time is sampled on the wall clock, so a machine shared with other work inflates it; this does
   * not. Self time x this / busy time is a function's CPU per call.
   */
  cpuMsPer1kCalls: number;
  top: HotFunction[];
  /** Self time by where the code lives: a `src/` folder, a package, a Node.js internal module. */
  byOrigin: Array<{ origin: string; selfMs: number; selfPercent: number }>;
  /**
   * The project's own functions by inclusive time (themselves and all they call): where in
   * Switchyard the self time above is spent. A recursive function counts once per sample.
   */
  srcInclusive: Array<{ name: string; location: string; totalMs: number; totalPercent: number }>;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `src/limits/x.ts:12`, `node_modules/fastify/lib/y.js:3`, `node:internal/http:40`. */
function location(frame: CallFrame): string {
  if (frame.url === '') return '(native)';
  const path = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  const relative = path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
  return `${relative}:${frame.lineNumber + 1}`;
}

function originOf(where: string): string {
  if (where === '(native)') return '(native: GC, builtins, program)';
  // PGlite (embedded mode) and undici's llhttp parser are both WebAssembly.
  if (where.startsWith('wasm://')) return 'wasm (PGlite in embedded mode, undici llhttp)';
  if (where.startsWith('node:')) return where.split('/').slice(0, 2).join('/').replace(/:\d+$/, '');
  const modules = where.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const parts = where.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (where.startsWith('src/')) return where.split('/').slice(0, 2).join('/').replace(/:\d+$/, '');
  return where.replace(/:\d+$/, '');
}

/** The load's window in microseconds of the monotonic clock (`process.hrtime.bigint() / 1000n`). */
export interface LoadWindow {
  fromUs: number;
  toUs: number;
  /** 2xx answers served in the window. */
  calls: number;
  /** The serving process's CPU seconds over the window. */
  cpuS: number;
}

export function summarizeProfile(
  scenario: ProfileSummary['scenario'],
  file: string,
  window: LoadWindow,
  topCount = 25,
): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let atUs = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    atUs += profile.timeDeltas[i];
    if (atUs < window.fromUs || atUs > window.toUs) continue;
    // A sample stands for the time until the next one (how DevTools attributes self time).
    const durationUs = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + durationUs);
  }
  const byFunction = new Map<string, { name: string; location: string; us: number }>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busyUs += us;
    const where = location(frame);
    const name = frame.functionName || '(anonymous)';
    const key = `${name} ${where}`;
    const entry = byFunction.get(key) ?? { name, location: where, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
  }
  const inclusive = srcInclusiveUs(profile, selfUs);
  const percent = (us: number) => Math.round((us / busyUs) * 1000) / 10;
  const ms = (us: number) => Math.round(us / 100) / 10;
  const origins = new Map<string, number>();
  for (const entry of byFunction.values()) {
    const origin = originOf(entry.location);
    origins.set(origin, (origins.get(origin) ?? 0) + entry.us);
  }
  return {
    scenario,
    file,
    window: { fromUs: window.fromUs, toUs: window.toUs },
    windowMs: Math.round((window.toUs - window.fromUs) / 1000),
    busyMs: ms(busyUs),
    calls: window.calls,
    cpuMsPer1kCalls: window.calls === 0 ? 0 : Math.round((window.cpuS / window.calls) * 1e7) / 10,
    top: [...byFunction.values()]
      .sort((x, y) => y.us - x.us)
      .slice(0, topCount)
      .map((entry) => ({
        name: entry.name,
        location: entry.location,
        selfMs: ms(entry.us),
        selfPercent: percent(entry.us),
      })),
    byOrigin: [...origins]
      .sort((x, y) => y[1] - x[1])
      .map(([origin, us]) => ({ origin, selfMs: ms(us), selfPercent: percent(us) })),
    srcInclusive: [...inclusive.values()]
      .sort((x, y) => y.us - x.us)
      .slice(0, topCount)
      .map((entry) => ({
        name: entry.name,
        location: entry.location,
        totalMs: ms(entry.us),
        totalPercent: percent(entry.us),
      })),
  };
}

/** For each `src/` function, the time of every sample with it somewhere on the stack. */
function srcInclusiveUs(profile: CpuProfile, selfUs: ReadonlyMap<number, number>) {
  const parents = new Map<number, ProfileNode>();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parents.set(child, node);
  }
  const totals = new Map<string, { name: string; location: string; us: number }>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let node = nodes.get(id); node !== undefined; node = parents.get(node.id)) {
      const where = location(node.callFrame);
      if (!where.startsWith('src/')) continue;
      const name = node.callFrame.functionName || '(anonymous)';
      const key = `${name} ${where}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = totals.get(key) ?? { name, location: where, us: 0 };
      entry.us += us;
      totals.set(key, entry);
    }
  }
  return totals;
}
