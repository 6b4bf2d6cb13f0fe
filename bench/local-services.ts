/**
 * The Redis and Postgres servers of REDIS_URL and DATABASE_URL, when they run on this host. They
 * are not the server under test, yet left alone the kernel runs them on its core too, where they
 * took a quarter to a third of a core each in (d). So for the run they are pinned to the load
 * cores (every thread, and every child of the postmaster: new backends inherit its affinity), and
 * given their own affinity back at the end. Their CPU is measured apart from the gateway's.
 * A server on another host or in a container is left alone: the pid it reports is not ours.
 */

import { createClient } from '@redis/client';
import type { BenchOptions } from './options.ts';
import { type CorePlan, setAffinity } from './pinning.ts';
import { withConnection } from './postgres-query.ts';
import { commandName, cpuSeconds, parentPid, processTree, statusField, threadIds } from './proc-stats.ts';

export type ServiceName = 'redis' | 'postgres';

/** CPU seconds of each service, null for one that does not run on this host. */
export type ServiceCpu = Record<ServiceName, number | null>;

interface LocalServer {
  name: ServiceName;
  /** redis-server or the postmaster: the root of the service's process tree. */
  pid: number;
}

const LABEL: Record<ServiceName, string> = { redis: 'Redis', postgres: 'Postgres' };
/** What `/proc/<pid>/comm` says of each: anything else is an unrelated process with that pid. */
const COMMAND: Record<ServiceName, string> = { redis: 'redis-server', postgres: 'postgres' };

/** redis-server's pid as it knows it (in its own pid namespace: a container's differs from ours). */
async function redisPid(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const match = /^process_id:(\d+)/m.exec(String(await client.info('server')));
    if (match === null) throw new Error('INFO server has no process_id');
    return Number(match[1]);
  } finally {
    await client.close();
  }
}

/** The postmaster: the parent of the backend serving this connection. */
async function postmasterPid(url: string): Promise<number> {
  // The backend is looked up while its connection is open: it exits when the connection ends.
  return withConnection(url, async (query) => {
    const [row] = await query<{ pid: number }>('select pg_backend_pid() as pid');
    // A backend that is no process here (a remote server) keeps its own pid: the caller's check fails.
    return commandName(row.pid) === COMMAND.postgres ? (parentPid(row.pid) ?? row.pid) : row.pid;
  });
}

/** The server behind `url` if it runs on this host, else why it is left alone. */
async function locate(name: ServiceName, url: string): Promise<LocalServer | string> {
  let pid: number;
  try {
    pid = await (name === 'redis' ? redisPid(url) : postmasterPid(url));
  } catch (error) {
    return `${LABEL[name]} left alone: its pid is unknown (${(error as Error).message})`;
  }
  const command = commandName(pid);
  if (command === COMMAND[name]) return { name, pid };
  return `${LABEL[name]} left alone: it runs on another host or in a container (its pid ${pid} is ${command ?? 'no process'} here)`;
}

function affinityOf(pid: number, tid: number): string | undefined {
  return statusField(`${pid}/task/${tid}`, 'Cpus_allowed_list');
}

export class LocalServices {
  readonly #servers: LocalServer[];
  readonly #enabled: boolean;
  /** Why a server was left alone or unpinned, for the report. */
  readonly #remarks: string[];
  /** The affinity list each pinned thread had before, by thread id, to give back at the end. */
  readonly #original = new Map<number, string>();
  /** Where the servers run now; null when not pinned. */
  #cores: string | null = null;
  /** Where they were pinned and what was given back, for the report. */
  #placement: string | null = null;
  /** The cores they were first pinned to, still known after they are given back. */
  #pinnedTo: string | null = null;
  /** Set by taskset's refusal or by `restore`: after either, nothing is pinned again. */
  #done = false;

  private constructor(servers: LocalServer[], enabled: boolean, remarks: string[]) {
    this.#servers = servers;
    this.#enabled = enabled;
    this.#remarks = remarks;
  }

  /** Finds the local servers of the run's storage; never throws (a server not found is a remark). */
  static async find(options: BenchOptions): Promise<LocalServices> {
    const found = await Promise.all([
      options.redisUrl === undefined ? null : locate('redis', options.redisUrl),
      options.databaseUrl === undefined ? null : locate('postgres', options.databaseUrl),
    ]);
    const servers = found.filter((f): f is LocalServer => typeof f === 'object' && f !== null);
    const remarks = found.filter((f): f is string => typeof f === 'string');
    if (!options.pinServices && servers.length > 0)
      remarks.push('Redis/Postgres not pinned: BENCH_PIN_SERVICES=0');
    return new LocalServices(servers, options.pinServices, remarks);
  }

  /** `Redis`, `Postgres`: the servers on the load cores now (counted in their busy share). */
  get pinnedLabels(): string[] {
    return this.#cores === null ? [] : this.#servers.map((server) => LABEL[server.name]);
  }

  /** For the report's pinning line: `Redis and Postgres on core(s) 1`. */
  get brief(): string {
    if (this.#servers.length === 0) return 'no local Redis or Postgres';
    const names = this.#servers.map((server) => LABEL[server.name]).join(' and ');
    return this.#pinnedTo === null ? `${names} not pinned` : `${names} on core(s) ${this.#pinnedTo}`;
  }

  /** For the report's notes: where Redis and Postgres ran, or why they were left alone. */
  get note(): string {
    const parts = this.#placement === null ? [] : [this.#placement];
    parts.push(...this.#remarks);
    if (parts.length === 0) {
      return this.#servers.length === 0
        ? 'no Redis or Postgres server on this host (embedded storage)'
        : 'Redis/Postgres not pinned: the server under test is not pinned either';
    }
    return parts.join('; ');
  }

  /** The services' process trees as they are now (Postgres forks a backend per connection). */
  pids(): Partial<Record<ServiceName, number[]>> {
    return Object.fromEntries(this.#servers.map((server) => [server.name, processTree(server.pid)]));
  }

  /** Starts counting the services' CPU; the returned function gives the seconds since (null: none local). */
  meter(): () => ServiceCpu | null {
    if (this.#servers.length === 0) return () => null;
    const read = (): ServiceCpu => {
      const trees = this.pids();
      // Exited children count too (`reaped`): backends and autovacuum workers come and go.
      const seconds = (pids: number[] | undefined) => (pids === undefined ? null : cpuSeconds(pids, true));
      return { redis: seconds(trees.redis), postgres: seconds(trees.postgres) };
    };
    const before = read();
    return () => {
      const after = read();
      const since = (name: ServiceName) => {
        const [from, to] = [before[name], after[name]];
        return from === null || to === null ? null : to - from;
      };
      return { redis: since('redis'), postgres: since('postgres') };
    };
  }

  /**
   * Pins the servers to `plan`'s load cores when the plan is applied; called again with another
   * plan, moves them there. What is given back at the end is the affinity before the first call.
   */
  follow(plan: CorePlan): void {
    const cores = plan.loadCores;
    const idle = this.#servers.length === 0 || !this.#enabled || this.#done;
    if (idle || !plan.applied || cores === null || cores === this.#cores) return;
    for (const server of this.#servers) {
      const refusal = this.#pinTree(server, cores);
      if (refusal === null) continue;
      // Not root, or a locked-down host: the run goes on with the servers where they were.
      this.restore();
      this.#placement = null;
      this.#pinnedTo = null;
      this.#remarks.push(`Redis/Postgres not pinned: taskset refused (${refusal})`);
      return;
    }
    this.#cores = cores;
    this.#pinnedTo ??= cores;
    this.#placement ??= `${this.#describe()} pinned to core(s) ${cores} with the load generator (they are not the server under test)`;
  }

  /** Returns null when every thread of the tree is pinned, else taskset's refusal. */
  #pinTree(server: LocalServer, cores: string): string | null {
    for (const pid of processTree(server.pid)) {
      for (const tid of threadIds(pid)) {
        const own = affinityOf(pid, tid);
        if (own === undefined) continue;
        const error = setAffinity(tid, cores);
        // A thread or backend that exited meanwhile needs nothing.
        if (error !== null && affinityOf(pid, tid) !== undefined) return error;
        if (error === null && !this.#original.has(tid)) this.#original.set(tid, own);
      }
    }
    return null;
  }

  /**
   * Gives every thread of the servers' trees its own affinity back; a child forked during the run
   * gets its parent's. Final: a scenario still finishing after Ctrl-C must not pin them again.
   * Synchronous, so a signal handler can call it. Returns what it did, or null when nothing was
   * pinned.
   */
  restore(): string | null {
    this.#done = true;
    if (this.#original.size === 0) return null;
    let restored = 0;
    const failures: string[] = [];
    for (const server of this.#servers) {
      const rootOwn = this.#original.get(server.pid);
      if (rootOwn === undefined) continue;
      for (const pid of processTree(server.pid)) {
        for (const tid of threadIds(pid)) {
          const own = this.#original.get(tid) ?? this.#original.get(pid) ?? rootOwn;
          const now = affinityOf(pid, tid);
          if (now === undefined || now === own) continue;
          const error = setAffinity(tid, own);
          if (error === null) restored++;
          else if (affinityOf(pid, tid) !== undefined) failures.push(`thread ${tid}: ${error}`);
        }
      }
    }
    this.#original.clear();
    this.#cores = null;
    const summary =
      failures.length === 0
        ? `their own affinity given back at the end (${restored} threads)`
        : `WARNING: their affinity could not be given back to ${failures.join(', ')}`;
    this.#placement = this.#placement === null ? null : `${this.#placement}; ${summary}`;
    return summary;
  }

  /** `Redis (pid 2221, 5 threads) and Postgres (postmaster 2201, 8 processes)`. */
  #describe(): string {
    return this.#servers
      .map((server) => {
        const tree = processTree(server.pid);
        const threads = tree.reduce((sum, pid) => sum + threadIds(pid).length, 0);
        return server.name === 'redis'
          ? `Redis (pid ${server.pid}, ${threads} threads)`
          : `Postgres (postmaster ${server.pid}, ${tree.length} processes)`;
      })
      .join(' and ');
  }
}
