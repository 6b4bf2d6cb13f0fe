/**
 * One event of a stream in a client format, as the decoders produce it, the translators turn it
 * and the gateway writes it (formats/sse.ts): `data` is a JSON value, or the string `[DONE]`.
 */
export interface StreamEvent<Data = unknown> {
  event?: string;
  data: Data;
}
