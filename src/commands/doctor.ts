import { createCacheStore } from '../cache/create-cache-store.ts';
import { type Config, loadConfig } from '../config.ts';
import type { Keyring } from '../crypto/index.ts';
import { ANTHROPIC_DEFAULT_BASE_URL } from '../providers/anthropic/anthropic-config.ts';
import { OPENAI_DEFAULT_BASE_URL } from '../providers/openai/openai-config.ts';
import { keyringFor } from '../server/runtime.ts';
import { type Db, openDatabase } from '../store/database.ts';
import { schemaVersion } from '../store/migrate.ts';
import { LATEST_SCHEMA_VERSION } from '../store/migrations/index.ts';
import { CommandError } from './exit-codes.ts';

/** How long doctor waits on one dependency or one upstream. */
const CHECK_TIMEOUT_MS = 5_000;

/** One finding: what was checked, what was seen, and, when wrong, what to do. */
interface Finding {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `switchyard doctor`: checks what a start needs, in the order a start opens it, and prints one
 * line per check on stdout (`ok` or `FAIL`, and for a failure what to do). Exits 1 when anything
 * failed. Reads only: it writes no row and generates no secret.
 */
export async function doctorCommand(env: Env, options: { probe: boolean }): Promise<void> {
  const findings: Finding[] = [];
  const report = (finding: Finding) => {
    findings.push(finding);
    const mark = finding.ok ? 'ok  ' : 'FAIL';
    const fix = finding.fix === undefined ? '' : `\n      -> ${finding.fix}`;
    process.stdout.write(`${mark} ${finding.check}: ${finding.detail}${fix}\n`);
  };
  const config = checkConfiguration(env, report);
  if (config !== undefined) await checkDependencies(config, options.probe, report);
  const failed = findings.filter((finding) => !finding.ok).length;
  if (failed > 0)
    throw new CommandError(`doctor found ${failed} problem(s); see the lines marked FAIL above`);
  process.stdout.write('all checks passed\n');
}

function checkConfiguration(env: Env, report: (finding: Finding) => void): Config | undefined {
  try {
    const config = loadConfig(env);
    report({ check: 'configuration', ok: true, detail: `variant ${config.variant}, port ${config.port}` });
    return config;
  } catch (error) {
    report({
      check: 'configuration',
      ok: false,
      detail: (error as Error).message,
      fix: 'set the variable as docs/configuration.md describes',
    });
    return undefined;
  }
}

async function checkDependencies(
  config: Config,
  probe: boolean,
  report: (finding: Finding) => void,
): Promise<void> {
  const keyring = checkKeyring(config, report);
  await checkCache(config, report);
  if (config.databaseUrl === undefined) {
    report({
      check: 'database',
      ok: true,
      detail: `embedded PGlite under ${config.dataDir} (migrated at start; secrets in ${config.dataDir}/secrets.json)`,
    });
    return;
  }
  const database = openDatabase({ url: config.databaseUrl, poolMax: 1, timeoutMs: CHECK_TIMEOUT_MS });
  try {
    if (!(await checkSchema(database.db, report))) return;
    if (keyring !== undefined) await checkEnvelopes(database.db, keyring, report);
    if (probe) await probeDeployments(database.db, report);
  } finally {
    await database.close();
  }
}

function checkKeyring(config: Config, report: (finding: Finding) => void): Keyring | undefined {
  if (config.databaseUrl === undefined && config.encryptionKeyring === undefined) return undefined;
  try {
    const keyring = keyringFor(config);
    report({
      check: 'keyring',
      ok: true,
      detail: `active key id "${keyring.activeId}" of ${keyring.keyIds.length}`,
    });
    return keyring;
  } catch (error) {
    report({
      check: 'keyring',
      ok: false,
      detail: (error as Error).message,
      fix: 'see docs/operations.md, Key rotation',
    });
    return undefined;
  }
}

async function checkCache(config: Config, report: (finding: Finding) => void): Promise<void> {
  if (config.redisUrl === undefined) {
    report({ check: 'cache store', ok: true, detail: 'in-process (REDIS_URL unset; one replica only)' });
    return;
  }
  try {
    const cache = await createCacheStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix });
    try {
      await cache.ping();
    } finally {
      await cache.close();
    }
    report({ check: 'cache store', ok: true, detail: 'Redis answers' });
  } catch (error) {
    report({
      check: 'cache store',
      ok: false,
      detail: `Redis cannot be used: ${(error as Error).message}`,
      fix: 'check REDIS_URL and that Redis is running and reachable from here',
    });
  }
}

/** False when the database cannot be read, so the checks that query it are skipped. */
async function checkSchema(db: Db, report: (finding: Finding) => void): Promise<boolean> {
  let version: number;
  try {
    version = await schemaVersion(db);
  } catch (error) {
    report({
      check: 'database',
      ok: false,
      detail: `cannot query DATABASE_URL: ${(error as Error).message}`,
      fix: 'check DATABASE_URL (host, port, user, database) and that Postgres is running',
    });
    return false;
  }
  report({ check: 'database', ok: true, detail: 'Postgres answers' });
  if (version < LATEST_SCHEMA_VERSION) {
    report({
      check: 'migrations',
      ok: false,
      detail: `schema at version ${version}, this release needs ${LATEST_SCHEMA_VERSION}`,
      fix: 'run `npx switchyard migrate` (or `npm run migrate`) once',
    });
    return false;
  }
  report({ check: 'migrations', ok: true, detail: `schema at version ${version}` });
  return true;
}

/** Credentials sealed under a key id the keyring lost cannot be opened: every call to them fails. */
async function checkEnvelopes(db: Db, keyring: Keyring, report: (finding: Finding) => void): Promise<void> {
  const rows = await db
    .selectFrom('deployments')
    .select(['api_key_key_id'])
    .where('api_key_envelope', 'is not', null)
    .execute();
  const unknown = rows.filter(
    (row) => row.api_key_key_id !== null && !keyring.keyIds.includes(row.api_key_key_id),
  );
  if (unknown.length === 0) {
    report({ check: 'credentials', ok: true, detail: `${rows.length} sealed under known key ids` });
    return;
  }
  const ids = [...new Set(unknown.map((row) => row.api_key_key_id))].join(', ');
  report({
    check: 'credentials',
    ok: false,
    detail: `${unknown.length} deployment credential(s) sealed under key id(s) missing from the keyring: ${ids}`,
    fix: 'put those ids back in ENCRYPTION_KEYRING, or re-submit the apiKey of those deployments',
  });
}

const DEFAULT_ORIGINS: Readonly<Record<string, string>> = {
  openai: OPENAI_DEFAULT_BASE_URL,
  anthropic: ANTHROPIC_DEFAULT_BASE_URL,
};

/**
 * `--probe`: one small unauthenticated GET to each enabled deployment's upstream. Any HTTP answer
 * means the upstream is reachable from here; a refused connection, a DNS failure or a timeout is
 * reported. It sends no credential and costs no tokens.
 */
async function probeDeployments(db: Db, report: (finding: Finding) => void): Promise<void> {
  const deployments = await db
    .selectFrom('deployments')
    .select(['id', 'public_model', 'provider', 'base_url'])
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
  for (const deployment of deployments) {
    const check = `probe ${deployment.public_model} (${deployment.id})`;
    const target = deployment.base_url ?? DEFAULT_ORIGINS[deployment.provider];
    if (target === undefined) {
      report({
        check,
        ok: true,
        detail: `skipped: ${deployment.provider} has a per-region endpoint and no baseUrl`,
      });
      continue;
    }
    try {
      const answer = await fetch(target, {
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
        redirect: 'manual',
      });
      await answer.body?.cancel();
      report({ check, ok: true, detail: `${new URL(target).origin} answered HTTP ${answer.status}` });
    } catch (error) {
      report({
        check,
        ok: false,
        detail: `${new URL(target).origin} unreachable: ${(error as Error).cause ?? (error as Error).message}`,
        fix: 'check the deployment baseUrl, DNS, and any proxy or firewall between here and the upstream',
      });
    }
  }
}
