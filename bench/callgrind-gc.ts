/**
 * The garbage collector's share of a callgrind dump. Under `--single-threaded-gc` every collection
 * runs on the main thread inside the calls it interrupts, and a window of a few hundred calls
 * holds a scavenge or two and, now and then, a full collection that costs more than all its
 * calls: the same code read 24k to 3.7M instructions per call from one window to the next
 * (docs/performance.md, Instructions per call). Counted apart, the calls' own work (the
 * mutator) compares window to window, and the collections are shared over every window's calls.
 *
 * A dump gives each function's self cost and each call edge's inclusive cost, not stacks; a GC
 * function can call a function that calls a GC function again (the scavenger's job runs through
 * the platform's job API), so summing the inclusive costs of calls into the GC counts some twice.
 * Self costs are split instead: a function is the GC's when its name says so or when every call
 * to it comes from the GC's functions; a function called from both (memcpy, malloc) gives the GC
 * the share of its calls' inclusive cost that came from the GC's functions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8's and cppgc's collection work: collections, incremental marking and its jobs, sweeping, the
 * marking barrier's slow path, and the stack scanning a collection starts with. Matched anywhere
 * in the name, as a demangled template function's name starts with its return type
 * (`void heap::base::Stack::SetMarkerAndCallbackImpl<...Heap::CollectGarbage...>`). Allocation
 * itself is not the GC.
 */
const GC_FUNCTION =
  /(?:^|[\s<(])(?:v8::internal::(?:(?:Heap|HeapAllocator)::(?:Collect\w*Garbage\w*|HandleGCRequest|FinalizeIncrementalMarking\w*|StartIncrementalMarking\w*|CompleteSweeping\w*|ReportExternalMemoryPressure|PerformGarbageCollection|GarbageCollection\w*)|IncrementalMarking(?:Job)?::|ScavengeJob::|MinorGCJob::|Sweeper::|ArrayBufferSweeper::|MarkingBarrier::|MarkCompactCollector::|ScavengerCollector::|Scavenger::|MinorMarkSweepCollector::|GCTracer::|CppHeap::|ConcurrentMarking::)|cppgc::internal::|heap::base::)/;

export interface DumpCounts {
  /** Every instruction of the dump (its `summary:` or `totals:` line). */
  total: number;
  /** Those of the garbage collector. */
  gc: number;
}

export function isGcFunction(name: string): boolean {
  return GC_FUNCTION.test(name);
}

/** `fn=(12) name` or `fn=(12)`: the name, remembered under its id when the line gives it. */
function nameOf(spec: string, names: Map<string, string>): string {
  const match = /^\((\d+)\)(?: (.*))?$/.exec(spec);
  if (match === null) return spec;
  const [, id, name] = match;
  if (name !== undefined) names.set(id, name);
  return names.get(id) ?? '';
}

/** Self costs by function, and the calls into each function: caller and inclusive cost. */
interface CallGraph {
  total: number;
  self: Map<string, number>;
  callers: Map<string, Map<string, number>>;
}

const lastNumber = (line: string) => Number(line.trim().split(/\s+/).at(-1));

function readGraph(text: string): CallGraph {
  const names = new Map<string, string>();
  const graph: CallGraph = { total: 0, self: new Map(), callers: new Map() };
  let fn = '';
  let callee = '';
  let callCostNext = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3), names);
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4), names);
    else if (line.startsWith('calls=')) callCostNext = true;
    else if (line.startsWith('summary:') || line.startsWith('totals:')) graph.total = lastNumber(line);
    else if (/^[\d+*-]/.test(line)) {
      const cost = lastNumber(line);
      if (callCostNext) {
        const into = graph.callers.get(callee) ?? new Map<string, number>();
        into.set(fn, (into.get(fn) ?? 0) + cost);
        graph.callers.set(callee, into);
        callCostNext = false;
      } else graph.self.set(fn, (graph.self.get(fn) ?? 0) + cost);
    }
  }
  return graph;
}

/** The GC's functions by name, and those only the GC's functions call, to a fixed point. */
function gcContext(graph: CallGraph): Set<string> {
  const gc = new Set<string>();
  for (const name of graph.self.keys()) if (isGcFunction(name)) gc.add(name);
  for (const name of graph.callers.keys()) if (isGcFunction(name)) gc.add(name);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [name, callers] of graph.callers) {
      if (gc.has(name) || callers.size === 0) continue;
      let onlyGc = true;
      for (const caller of callers.keys()) if (!gc.has(caller)) onlyGc = false;
      if (onlyGc) {
        gc.add(name);
        grown = true;
      }
    }
  }
  return gc;
}

/** Each function's self cost in one dump's text, by the name callgrind gives it. */
export function selfCosts(text: string): Map<string, number> {
  return readGraph(text).self;
}

/** Reads one callgrind dump's text (one event, `Ir`, as callgrind counts by default). */
export function countDump(text: string): DumpCounts {
  const graph = readGraph(text);
  const gc = gcContext(graph);
  let gcCost = 0;
  for (const [name, self] of graph.self) {
    if (gc.has(name)) {
      gcCost += self;
      continue;
    }
    const callers = graph.callers.get(name);
    if (callers === undefined) continue;
    let fromGc = 0;
    let all = 0;
    for (const [caller, cost] of callers) {
      all += cost;
      if (gc.has(caller)) fromGc += cost;
    }
    if (all > 0) gcCost += (self * fromGc) / all;
  }
  return { total: graph.total, gc: Math.round(gcCost) };
}

/** The newest dump callgrind wrote for `pid` in `dir` (`callgrind.<pid>.out.<n>`). */
export function latestDump(dir: string, pid: number): string {
  const prefix = `callgrind.${pid}.out.`;
  let newest = -1;
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(prefix)) continue;
    const number = Number(file.slice(prefix.length));
    if (Number.isInteger(number) && number > newest) newest = number;
  }
  if (newest === -1) throw new Error(`no callgrind dump of pid ${pid} in ${dir}`);
  return join(dir, `${prefix}${newest}`);
}

export function countLatestDump(dir: string, pid: number): DumpCounts {
  return countDump(readFileSync(latestDump(dir, pid), 'utf8'));
}
