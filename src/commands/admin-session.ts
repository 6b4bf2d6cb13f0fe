import type { Config } from '../config.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { CachedKeyResolver } from '../keys/cached-key-resolver.ts';
import { VirtualKeyAdmin } from '../keys/virtual-key-admin.ts';
import { openRuntime, type Runtime } from '../server/runtime.ts';
import { TeamAdmin } from '../teams/team-admin.ts';

/** The admin API's own rules, for a CLI command: the same classes the routes call. */
export interface AdminSession {
  runtime: Runtime;
  keys: VirtualKeyAdmin;
  teams: TeamAdmin;
}

/**
 * Opens the runtime (the embedded database too: its directory lock stops a command while a
 * gateway runs on it), runs `work` with the admin classes, and closes everything. Log lines go to
 * stderr, so stdout carries only the command's answer.
 */
export async function withAdminSession<T>(
  config: Config,
  work: (session: AdminSession) => Promise<T>,
): Promise<T> {
  const logger = createLogger(config.logLevel, process.stderr);
  const runtime = await openRuntime(config, logger);
  try {
    const { database, cache } = runtime;
    // Changes are announced through the cache store: running replicas drop their key caches.
    const resolver = new CachedKeyResolver(database.db, 0);
    // The background view: a command is not a request, and its statements may queue behind a busy database.
    const deps = { db: database.background, cache, resolver, logger };
    return await work({ runtime, keys: new VirtualKeyAdmin(deps), teams: new TeamAdmin(deps) });
  } finally {
    await runtime.lifecycle.shutdown();
  }
}
