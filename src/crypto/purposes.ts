/**
 * What an envelope may hold (SPEC.md, Authentication: "purpose-bound AES-256-GCM envelopes").
 * The purpose is authenticated with the ciphertext, so a value sealed for one use cannot be
 * replayed as another: a compaction capsule a client holds cannot be passed off as a deployment
 * credential or as stored response state, nor a payload sample as an extension artifact.
 */
export const PURPOSES = [
  'deployment-credential',
  'responses-capsule',
  'responses-state',
  'payload-sample',
  'extension-artifact',
] as const;

export type Purpose = (typeof PURPOSES)[number];

const PURPOSE_SET: ReadonlySet<string> = new Set(PURPOSES);

export function isPurpose(value: unknown): value is Purpose {
  return typeof value === 'string' && PURPOSE_SET.has(value);
}

/** Guards the runtime boundary where a caller's purpose is not checked by the type system. */
export function assertPurpose(value: unknown): asserts value is Purpose {
  if (!isPurpose(value)) {
    throw new TypeError(`unknown envelope purpose (expected one of: ${PURPOSES.join(', ')})`);
  }
}
