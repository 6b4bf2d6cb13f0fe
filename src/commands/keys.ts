import { listAll } from '../admin-kit/list-all.ts';
import type { Config } from '../config.ts';
import type { VirtualKeyRow } from '../keys/virtual-key-row.ts';
import { virtualKeyCreateSchema, virtualKeyRotateSchema } from '../keys/virtual-key-schemas.ts';
import { virtualKeyView } from '../keys/virtual-key-view.ts';
import { withAdminSession } from './admin-session.ts';
import { CommandError } from './exit-codes.ts';
import { parseInput } from './parse-input.ts';
import { printTable } from './print-table.ts';

export interface CreateKeyOptions {
  name: string;
  models: string;
  team?: string;
  rpmLimit?: number;
  tpmLimit?: number;
  budgetCents?: number;
  budgetPeriod?: string;
  json?: boolean;
}

/** `keys create`: the same rules as `POST /admin/keys`; the secret is printed once, on stdout. */
export async function createKeyCommand(config: Config, options: CreateKeyOptions): Promise<void> {
  const input = parseInput(virtualKeyCreateSchema, {
    name: options.name,
    allowedModels: options.models.split(',').map((model) => model.trim()),
    teamId: options.team,
    rpmLimit: options.rpmLimit,
    tpmLimit: options.tpmLimit,
    budgetCents: options.budgetCents,
    budgetPeriod: options.budgetPeriod,
  });
  await withAdminSession(config, async ({ keys }) => {
    const { row, secret } = await keys.create(input);
    printIssued(row, secret, options.json === true);
  });
}

export async function listKeysCommand(config: Config, options: { json?: boolean }): Promise<void> {
  await withAdminSession(config, async ({ keys }) => {
    const rows = await listAll((page) => keys.list(page));
    if (options.json === true) {
      for (const row of rows) process.stdout.write(`${JSON.stringify(virtualKeyView(row))}\n`);
      return;
    }
    printTable(
      ['id', 'name', 'enabled', 'team', 'models'],
      rows.map((row) => [
        row.id,
        row.name,
        String(row.enabled),
        row.team_id ?? '-',
        row.allowed_models.join(','),
      ]),
    );
  });
}

export async function disableKeyCommand(config: Config, id: string): Promise<void> {
  await withAdminSession(config, async ({ keys }) => {
    if ((await keys.update(id, { enabled: false })) === undefined) throw noSuchKey(id);
    process.stdout.write(`disabled ${id}\n`);
  });
}

export async function rotateKeyCommand(
  config: Config,
  id: string,
  options: { gracePeriodSeconds: number; json?: boolean },
): Promise<void> {
  const input = parseInput(virtualKeyRotateSchema, { gracePeriodSeconds: options.gracePeriodSeconds });
  await withAdminSession(config, async ({ keys }) => {
    const rotated = await keys.rotate(id, input);
    if (rotated === undefined) throw noSuchKey(id);
    printIssued(rotated.row, rotated.secret, options.json === true);
  });
}

function noSuchKey(id: string): CommandError {
  return new CommandError(`no virtual key with id "${id}" (switchyard keys list shows them)`);
}

function printIssued(row: VirtualKeyRow, secret: string, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...virtualKeyView(row), key: secret })}\n`);
    return;
  }
  process.stdout.write(`id:  ${row.id}\nkey: ${secret}\n`);
  process.stderr.write('The secret is shown this once; the gateway keeps only its hash.\n');
}
