import type { Keyring } from '../crypto/index.ts';
import type { Db } from '../store/database.ts';

/** Samples answered for one request id at most (a client may reuse an `x-request-id`). */
export const PAYLOAD_SAMPLES_PER_REQUEST = 20;

export interface PayloadSampleView {
  id: string;
  operationId: string;
  createdAt: string;
  /** Why it was kept: `failure` (every failure) or `sampled` (a share of successes). */
  sampleReason: 'sampled' | 'failure';
  /** The sealed JSON (request, response, error), or null when its key is no longer in the keyring. */
  payload: unknown;
}

/** The sealed samples of a request id, newest first, still closed. */
export function findPayloadSamples(db: Db, requestId: string) {
  return db
    .selectFrom('payload_samples')
    .select(['id', 'operation_id', 'created_at', 'reason', 'envelope'])
    .where('request_id', '=', requestId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAYLOAD_SAMPLES_PER_REQUEST)
    .execute();
}

type SealedSample = Awaited<ReturnType<typeof findPayloadSamples>>[number];

/** Opens a sample (purpose `payload-sample`); one sealed under a key since removed shows null. */
export function openPayloadSample(keyring: Keyring, sample: SealedSample): PayloadSampleView {
  let payload: unknown = null;
  try {
    payload = JSON.parse(keyring.openString('payload-sample', sample.envelope));
  } catch {
    payload = null;
  }
  return {
    id: sample.id,
    operationId: sample.operation_id,
    createdAt: new Date(sample.created_at).toISOString(),
    sampleReason: sample.reason,
    payload,
  };
}
