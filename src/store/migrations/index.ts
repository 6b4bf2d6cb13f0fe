/**
 * The forward-only migration list (SPEC.md, Versioning): an applied migration is never edited; a
 * change is a new numbered file appended here.
 */
import { sql as core } from './0001-core.ts';
import { sql as requestLogs } from './0002-request-logs.ts';
import { sql as operationRecords } from './0003-operation-records.ts';
import { sql as responseCacheHits } from './0004-response-cache-hits.ts';
import { sql as audit } from './0005-audit.ts';
import { sql as keyRotation } from './0006-key-rotation.ts';
import { sql as extensions } from './0007-extensions.ts';
import { sql as responseStates } from './0008-response-states.ts';
import { sql as teamsAndBudgetPeriods } from './0009-teams-and-budget-periods.ts';
import { sql as usageIndex } from './0010-usage-index.ts';
import { sql as configFile } from './0011-config-file.ts';
import { sql as usageRollups } from './0012-usage-rollups.ts';
import { sql as contentFilter } from './0013-content-filter.ts';
import { sql as spendBatches } from './0014-spend-batches.ts';
import { sql as configFileExtensions } from './0015-config-file-extensions.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  { version: 1, name: 'core', sql: core },
  { version: 2, name: 'request-logs', sql: requestLogs },
  { version: 3, name: 'operation-records', sql: operationRecords },
  { version: 4, name: 'response-cache-hits', sql: responseCacheHits },
  { version: 5, name: 'audit', sql: audit },
  { version: 6, name: 'key-rotation', sql: keyRotation },
  { version: 7, name: 'extensions', sql: extensions },
  { version: 8, name: 'response-states', sql: responseStates },
  { version: 9, name: 'teams-and-budget-periods', sql: teamsAndBudgetPeriods },
  { version: 10, name: 'usage-index', sql: usageIndex },
  { version: 11, name: 'config-file', sql: configFile },
  { version: 12, name: 'usage-rollups', sql: usageRollups },
  { version: 13, name: 'content-filter', sql: contentFilter },
  { version: 14, name: 'spend-batches', sql: spendBatches },
  { version: 15, name: 'config-file-extensions', sql: configFileExtensions },
]);

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
