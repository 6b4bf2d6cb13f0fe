import { sql } from 'kysely';
import { affectedRows, type Db } from '../../store/database.ts';
import { ENVELOPE_VERSION } from '../envelope.ts';
import type { Purpose } from '../purposes.ts';
import type { BatchQuery, EnvelopeRow, TableRotator } from './table-rotator.ts';

export interface ColumnRotatorSpec {
  table: string;
  purpose: Purpose;
  /** A unique text column that orders the keyset walk. */
  idColumn: string;
  /** The column holding the envelope (nullable: null rows are skipped). */
  envelopeColumn: string;
  /**
   * A column mirroring the envelope's key id, indexed, so the batch query does not parse
   * envelopes; without it the envelope's header is matched instead.
   */
  keyIdColumn?: string;
  channel?: string;
}

/** The rotator of a table whose envelopes sit in one column of rows with a text id. */
export function columnRotator(spec: ColumnRotatorSpec): TableRotator {
  const { table, idColumn, envelopeColumn, keyIdColumn } = spec;
  return Object.freeze({
    table,
    purpose: spec.purpose,
    channel: spec.channel,

    async selectBatch(tx: Db, query: BatchQuery): Promise<EnvelopeRow[]> {
      const envelope = sql.ref(envelopeColumn);
      const id = sql.ref(idColumn);
      const notActive =
        keyIdColumn === undefined
          ? sql`not starts_with(${envelope}, ${`${ENVELOPE_VERSION}:${query.activeId}:`})`
          : sql`${sql.ref(keyIdColumn)} is distinct from ${query.activeId}`;
      const after = query.afterId === null ? sql`true` : sql`${id} > ${query.afterId}`;
      const { rows } = await sql<EnvelopeRow>`
        select ${id} as id, ${envelope} as envelope
        from ${sql.table(table)}
        where ${envelope} is not null and ${notActive} and ${after}
        order by ${id}
        limit ${query.limit}
        for update skip locked`.execute(tx);
      return rows;
    },

    async update(tx: Db, row: EnvelopeRow, next: string, activeId: string): Promise<boolean> {
      const envelope = sql.ref(envelopeColumn);
      const keyId = keyIdColumn === undefined ? sql`` : sql`, ${sql.ref(keyIdColumn)} = ${activeId}`;
      const result = await sql`
        update ${sql.table(table)} set ${envelope} = ${next}${keyId}
        where ${sql.ref(idColumn)} = ${row.id} and ${envelope} = ${row.envelope}`.execute(tx);
      return affectedRows(result) === 1;
    },
  });
}
