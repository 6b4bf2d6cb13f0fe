import { isRecord } from '../json.ts';

/** A field `z.string().nullish()` accepts. */
function nullishString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

/** A choice of the common shape: text deltas, no tool calls; `stop_reason` as the schema allows. */
function plainChoice(choice: unknown): boolean {
  if (!isRecord(choice) || typeof choice.index !== 'number') return false;
  const delta = choice.delta;
  if (!isRecord(delta) || delta.tool_calls !== undefined) return false;
  const stop = choice.stop_reason;
  return (
    nullishString(delta.role) &&
    nullishString(delta.content) &&
    nullishString(delta.refusal) &&
    nullishString(delta.reasoning_content) &&
    nullishString(choice.finish_reason) &&
    (nullishString(stop) || typeof stop === 'number')
  );
}

/**
 * Whether `data` is a chunk `chatCompletionChunkSchema` (wire.ts) accepts, proven by a few type
 * checks for the shape nearly every event of a stream has: text deltas, no tool calls, no usage.
 * It accepts nothing the schema refuses; false means "not proven", and the caller runs the schema,
 * whose verdict and error stand (docs/decisions/hot-path.md, Stream chunks checked by a guard
 * first). Keep it in step with the schema: it checks every field the schema declares.
 */
export function isPlainChunk(data: unknown): boolean {
  if (!isRecord(data)) return false;
  if (
    typeof data.id !== 'string' ||
    data.object !== 'chat.completion.chunk' ||
    typeof data.created !== 'number' ||
    typeof data.model !== 'string' ||
    (data.usage !== undefined && data.usage !== null)
  ) {
    return false;
  }
  const choices = data.choices;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) if (!plainChoice(choice)) return false;
  return true;
}
