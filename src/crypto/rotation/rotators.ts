import { CHANNELS } from '../../cache/channels.ts';
import { columnRotator } from './column-rotator.ts';
import type { TableRotator } from './table-rotator.ts';

/**
 * Every table holding envelopes, in the order `encryption:rotate` walks and reports them.
 * Extension artifacts join with one entry when their table exists.
 */
export const ROTATORS: readonly TableRotator[] = Object.freeze([
  columnRotator({
    table: 'deployments',
    purpose: 'deployment-credential',
    idColumn: 'id',
    envelopeColumn: 'api_key_envelope',
    keyIdColumn: 'api_key_key_id',
    channel: CHANNELS.deploymentsChanged,
  }),
  columnRotator({
    table: 'payload_samples',
    purpose: 'payload-sample',
    idColumn: 'id',
    envelopeColumn: 'envelope',
    keyIdColumn: 'envelope_key_id',
  }),
  columnRotator({
    table: 'response_states',
    purpose: 'responses-state',
    idColumn: 'id',
    envelopeColumn: 'envelope',
    keyIdColumn: 'envelope_key_id',
  }),
]);
