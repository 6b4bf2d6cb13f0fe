import { listAll } from '../admin-kit/list-all.ts';
import type { Config } from '../config.ts';
import { teamView } from '../teams/team-view.ts';
import { withAdminSession } from './admin-session.ts';
import { printTable } from './print-table.ts';

export async function listTeamsCommand(config: Config, options: { json?: boolean }): Promise<void> {
  await withAdminSession(config, async ({ teams }) => {
    const rows = await listAll((page) => teams.list(page));
    if (options.json === true) {
      for (const row of rows) process.stdout.write(`${JSON.stringify(teamView(row))}\n`);
      return;
    }
    printTable(
      ['id', 'name', 'models', 'budgetCents'],
      rows.map((row) => [row.id, row.name, row.allowed_models.join(','), String(row.budget_cents ?? '-')]),
    );
  });
}
