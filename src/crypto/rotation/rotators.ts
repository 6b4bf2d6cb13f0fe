import { CHANNELS } from '../../cache/channels.ts';
import { columnRotator } from './column-rotator.ts';
import type { TableRotator } from './table-rotator.ts';

/** Every table holding envelopes, in the order `encryption:rotate` walks and reports them. */
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
    table: 'extensions',
    purpose: 'extension-artifact',
    idColumn: 'id',
    envelopeColumn: 'source_envelope',
    keyIdColumn: 'source_key_id',
    channel: CHANNELS.extensionsChanged,
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
