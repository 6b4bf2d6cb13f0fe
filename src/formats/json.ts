/** The JSON object type the response cache's replay and assembly modules read and write. */
export type Json = Record<string, unknown>;
