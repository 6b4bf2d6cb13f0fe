import type { CacheStore } from '../cache/cache-store.ts';
import type { Config } from '../config.ts';
import { rotateEnvelopes, type TableRotation } from '../crypto/rotation/rotate-envelopes.ts';
import { ROTATORS } from '../crypto/rotation/rotators.ts';
import type { TableRotator } from '../crypto/rotation/table-rotator.ts';
import { createLogger, type Logger } from '../diagnostics/logger.ts';
import { openRuntime, type Runtime } from '../server/runtime.ts';

/**
 * `npm run encryption:rotate` (SPEC.md, Authentication, Variant B, rotation steps 3 and 4).
 * Progress and problems go to stderr; stdout carries exactly the report, one line per table
 * (`<table>: <n> re-encrypted`) and a last line `total: <n>`, so a second run proves the first
 * finished by printing `total: 0`. Exits 1 when some envelope could not be opened.
 *
 * Variant A has one key and no key ids to move between: rotation there is re-submitting each
 * deployment's key by PATCH (SPEC.md, Variant A). The command says so, counts the deployments
 * still sealed under another key, and exits 0.
 */
export async function rotateCommand(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, process.stderr);
  const runtime = await openRuntime(config, logger);
  try {
    if (runtime.config.variant === 'a') await explainVariantA(runtime);
    else await rotate(runtime, logger);
  } finally {
    await runtime.lifecycle.shutdown();
  }
}

async function rotate(runtime: Runtime, logger: Logger): Promise<void> {
  const { keyring } = runtime;
  process.stderr.write(
    `encryption:rotate: re-encrypting under key id "${keyring.activeId}" (keyring: ${keyring.keyIds.join(', ')})\n`,
  );
  const report = await rotateEnvelopes(runtime.database.background, keyring, ROTATORS, {
    onBatch: (table, batch) =>
      process.stderr.write(
        `${table}: batch of ${batch.rotated} re-encrypted${batch.failed > 0 ? `, ${batch.failed} failed` : ''} (${batch.rotatedSoFar} so far)\n`,
      ),
    onFailure: (table, id, reason) => process.stderr.write(`${table} ${id}: cannot re-encrypt: ${reason}\n`),
  });
  let total = 0;
  for (const table of report) {
    process.stdout.write(`${table.table}: ${table.rotated} re-encrypted\n`);
    total += table.rotated;
  }
  process.stdout.write(`total: ${total}\n`);
  await announce(runtime.cache, ROTATORS, report, logger);
  const failed = report.reduce((sum, table) => sum + table.failed, 0);
  if (failed > 0) {
    process.stderr.write(
      `encryption:rotate: ${failed} envelope(s) could not be opened with this keyring and were left as they are; restore their key id to ENCRYPTION_KEYRING and run again, or re-submit the values (PATCH /admin/deployments/:id)\n`,
    );
    process.exitCode = 1;
  }
}

/** Replicas holding the old envelopes in memory reload them (they could still open them, but need not keep the old key). */
async function announce(
  cache: CacheStore,
  rotators: readonly TableRotator[],
  report: readonly TableRotation[],
  logger: Logger,
): Promise<void> {
  for (const rotator of rotators) {
    const changed = report.find((table) => table.table === rotator.table)?.rotated ?? 0;
    if (changed === 0 || rotator.channel === undefined) continue;
    try {
      await cache.publish(rotator.channel, 'encryption:rotate');
    } catch (error) {
      logger.warn(
        { err: error, table: rotator.table },
        'could not announce the rotation; replicas reload within 30 s',
      );
    }
  }
}

async function explainVariantA(runtime: Runtime): Promise<void> {
  const { count } = await runtime.database.db
    .selectFrom('deployments')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('api_key_envelope', 'is not', null)
    .where('api_key_key_id', 'is distinct from', runtime.keyring.activeId)
    .executeTakeFirstOrThrow();
  process.stdout.write(
    `GATEWAY_VARIANT=a rotates by PATCH: re-submit each deployment's apiKey with PATCH /admin/deployments/:id (docs/operations.md); ${Number(count)} deployment(s) are sealed under a key other than the current CREDENTIALS_ENCRYPTION_KEY\n`,
  );
}
