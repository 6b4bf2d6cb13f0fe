import type { TransactionSql } from 'postgres';
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

    async selectBatch(tx: TransactionSql, query: BatchQuery): Promise<EnvelopeRow[]> {
      const notActive =
        keyIdColumn === undefined
          ? tx`not starts_with(${tx(envelopeColumn)}, ${`${ENVELOPE_VERSION}:${query.activeId}:`})`
          : tx`${tx(keyIdColumn)} is distinct from ${query.activeId}`;
      const after = query.afterId === null ? tx`true` : tx`${tx(idColumn)} > ${query.afterId}`;
      return tx<EnvelopeRow[]>`
        select ${tx(idColumn)} as id, ${tx(envelopeColumn)} as envelope
        from ${tx(table)}
        where ${tx(envelopeColumn)} is not null and ${notActive} and ${after}
        order by ${tx(idColumn)}
        limit ${query.limit}
        for update skip locked`;
    },

    async update(tx: TransactionSql, row: EnvelopeRow, next: string, activeId: string): Promise<boolean> {
      const columns: Record<string, string> = { [envelopeColumn]: next };
      if (keyIdColumn !== undefined) columns[keyIdColumn] = activeId;
      const result = await tx`
        update ${tx(table)} set ${tx(columns)}
        where ${tx(idColumn)} = ${row.id} and ${tx(envelopeColumn)} = ${row.envelope}`;
      return result.count === 1;
    },
  });
}
