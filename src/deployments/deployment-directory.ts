import { sql } from 'kysely';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { ConfigurationSnapshot } from '../cache/configuration-snapshot.ts';
import { isEnvelopeError, type Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { lookupCatalogEntry } from '../providers/catalog-entries.ts';
import type { DeploymentTarget, Operation } from '../providers/types.ts';
import type { Db } from '../store/database.ts';
import { type CandidatePool, candidatePools, type PoolOf } from './candidate-pools.ts';
import { type Deployment, type DeploymentRow, deploymentFromRow } from './deployment.ts';

/** Periodic reload interval: a safety net for a missed pub/sub message. */
const REFRESH_INTERVAL_MS = 30_000;
/**
 * The periodic reload reads the rows even when the table is unchanged once this long after the
 * last load: the cache store's copy is rewritten hourly after a load (ConfigurationSnapshot), so it
 * outlives its TTL.
 */
const FULL_RELOAD_MS = 3_600_000;
/**
 * Digest of every row, every column: the table's content as it stands. Read before the rows, so
 * a change landing between the two is read again by the next periodic reload, never missed.
 */
const TABLE_DIGEST = sql<string>`md5(coalesce(string_agg(d::text, ',' order by d.id), ''))`;

/**
 * Every deployment, held in memory so routing never queries the database (DESIGN.md section 4).
 * Reloaded when any replica announces a change, and periodically. While the database is down the
 * last snapshot keeps serving.
 */
export class DeploymentDirectory {
  readonly #db: Db;
  readonly #keyring: Keyring;
  readonly #logger: Logger;
  #byModel = new Map<string, readonly Deployment[]>();
  #pools: PoolOf = candidatePools(() => []);
  #targets = new WeakMap<Deployment, DeploymentTarget>();
  #timer: NodeJS.Timeout | undefined;
  /** Loads are numbered as they start; a load finishing after a newer one was applied is dropped. */
  #loadsStarted = 0;
  #loadApplied = 0;
  /** The table's digest (TABLE_DIGEST) when the rows applied last were read, and when; null when not read. */
  #loaded: { digest: string; atMs: number } | null = null;
  readonly #unopenableReported = new Set<string>();
  readonly #saved: ConfigurationSnapshot<DeploymentRow[]> | null;

  /** `saved`: the copy in the cache store, written after each load (a replica starting without Postgres reads it). */
  constructor(
    db: Db,
    keyring: Keyring,
    logger: Logger,
    saved: ConfigurationSnapshot<DeploymentRow[]> | null = null,
  ) {
    this.#db = db;
    this.#keyring = keyring;
    this.#logger = logger;
    this.#saved = saved;
  }

  /**
   * Reads every deployment and replaces the snapshot. Concurrent loads (a pub/sub reload, the
   * timer, an admin write awaiting its own change) may finish out of order: only the most recently
   * started one that finished is kept, so a slow load begun before a write cannot undo it.
   */
  async load(): Promise<void> {
    await this.#loadAt(null);
  }

  /**
   * `digest`: the table's, read just before (the periodic reload), or null when not read (a change
   * announced, or a start): the next periodic reload then reads the rows again, once.
   */
  async #loadAt(digest: string | null): Promise<void> {
    const sequence = ++this.#loadsStarted;
    const rows = await this.#db.selectFrom('deployments').selectAll().orderBy('id').execute();
    if (sequence < this.#loadApplied) return;
    this.#apply(rows, sequence, digest);
    void this.#saved?.save(rows);
  }

  async #digest(): Promise<string> {
    const row = await this.#db
      .selectFrom('deployments as d')
      .select(TABLE_DIGEST.as('digest'))
      .executeTakeFirstOrThrow();
    return row.digest;
  }

  /**
   * The periodic reload: reads and rebuilds the directory only when the table changed since the
   * last load (or FULL_RELOAD_MS passed): a full load of a large directory is a long stretch of
   * the event loop (docs/decisions/hot-path.md, "Periodic directory reload only on change").
   */
  async #refresh(): Promise<void> {
    const digest = await this.#digest();
    const loaded = this.#loaded;
    if (loaded?.digest === digest && Date.now() - loaded.atMs < FULL_RELOAD_MS) return;
    await this.#loadAt(digest);
  }

  /**
   * Serves the deployments of the cache store's copy (a start while Postgres is unreachable);
   * a load from the database, begun before or after, wins. Their number, or null when there is no copy.
   */
  async loadSaved(): Promise<number | null> {
    const sequence = ++this.#loadsStarted;
    const saved = await this.#saved?.read();
    if (saved == null || sequence < this.#loadApplied) return null;
    this.#apply(saved.value, sequence, null);
    return saved.value.length;
  }

  #apply(rows: readonly DeploymentRow[], sequence: number, digest: string | null): void {
    const byModel = new Map<string, Deployment[]>();
    for (const row of rows) {
      const deployment = deploymentFromRow(row);
      this.#checkKeyId(deployment, row.api_key_key_id);
      const list = byModel.get(deployment.publicModel) ?? [];
      list.push(deployment);
      byModel.set(deployment.publicModel, list);
    }
    this.#loadApplied = sequence;
    this.#loaded = digest === null ? null : { digest, atMs: Date.now() };
    this.#byModel = byModel;
    this.#pools = candidatePools((publicModel) => byModel.get(publicModel) ?? []);
    this.#targets = new WeakMap();
  }

  /**
   * Says at load time, not on the hot path, which credentials this keyring cannot open; once per
   * deployment and key id, so the periodic reload does not repeat it.
   */
  #checkKeyId(deployment: Deployment, keyId: string | null): void {
    if (deployment.apiKeyEnvelope === null || keyId === null || this.#keyring.has(keyId)) return;
    const reported = `${deployment.id}:${keyId}`;
    if (this.#unopenableReported.has(reported)) return;
    this.#unopenableReported.add(reported);
    this.#logger.error(
      { deploymentId: deployment.id, keyId, keyIds: this.#keyring.keyIds },
      `deployment credential is sealed under key id "${keyId}", which is not in the keyring: calls to this deployment fail until the key is restored or the apiKey is PATCHed`,
    );
  }

  /** Reloads on change announcements and every 30 s; returns a stop function. */
  async watch(cache: CacheStore): Promise<() => Promise<void>> {
    const unsubscribe = await cache.subscribe(
      CHANNELS.deploymentsChanged,
      () => void this.#reload(() => this.load()),
    );
    this.#timer = setInterval(() => void this.#reload(() => this.#refresh()), REFRESH_INTERVAL_MS).unref();
    return async () => {
      clearInterval(this.#timer);
      await unsubscribe();
    };
  }

  async #reload(load: () => Promise<void>): Promise<void> {
    try {
      await load();
    } catch (error) {
      this.#logger.warn({ err: error }, 'deployment reload failed; serving the last snapshot');
    }
  }

  /** Every deployment of a public model, enabled or not. */
  deploymentsOf(publicModel: string): readonly Deployment[] {
    return this.#byModel.get(publicModel) ?? [];
  }

  /** The deployments of a public model that serve an operation (built once per load). */
  poolOf(publicModel: string, operation: Operation): CandidatePool {
    return this.#pools(publicModel, operation);
  }

  publicModels(): string[] {
    return [...this.#byModel.keys()];
  }

  /**
   * The adapter's view, with the API key opened once per loaded deployment. A credential this
   * keyring cannot open (key id removed, key replaced) is a 502 with a generic message; the key id
   * and reason go to the private detail, which the request's log line carries.
   */
  targetOf(deployment: Deployment): DeploymentTarget {
    let target = this.#targets.get(deployment);
    if (target === undefined) {
      const apiKey =
        deployment.apiKeyEnvelope === null
          ? null
          : this.#openCredential(deployment.id, deployment.apiKeyEnvelope);
      target = {
        id: deployment.id,
        provider: deployment.provider,
        upstreamModel: deployment.upstreamModel,
        apiKey,
        baseUrl: deployment.baseUrl,
        providerOptions: deployment.providerOptions,
        knownReasoning: knownReasoning(deployment),
      };
      this.#targets.set(deployment, target);
    }
    return target;
  }

  #openCredential(deploymentId: string, envelope: string): string {
    try {
      return this.#keyring.openString('deployment-credential', envelope);
    } catch (error) {
      if (!isEnvelopeError(error)) throw error;
      throw new GatewayError('upstream_error', {
        message: 'The deployment is misconfigured.',
        detail: {
          deploymentId,
          reason: `credential cannot be opened: ${error.message}`,
          keyId: error.keyId,
        },
        cause: error,
      });
    }
  }
}

function knownReasoning(deployment: Deployment): boolean {
  const entry = lookupCatalogEntry(deployment.provider, deployment.upstreamModel);
  return entry.source.capabilities === 'overlay' && entry.capabilities.reasoning;
}
