import {
  type CapabilityUse,
  firstImagePart,
  isJsonSchemaFormat,
  isSet,
  nonEmptyArray,
} from '../capability-use.ts';
import type { Json } from '../json.ts';

const CHAT_IMAGE = new Set<unknown>(['image_url']);

/**
 * Chat Completions (OpenAI API reference): `tools` / legacy `functions`, `image_url` parts,
 * `reasoning_effort`, `response_format: { type: "json_schema" }`.
 */
export function capabilitiesUsed(body: Readonly<Json>): CapabilityUse[] {
  const uses: CapabilityUse[] = [];
  if (nonEmptyArray(body.tools)) uses.push({ capability: 'tools', param: 'tools' });
  else if (nonEmptyArray(body.functions)) uses.push({ capability: 'tools', param: 'functions' });
  const image = firstImagePart(body.messages, 'messages', CHAT_IMAGE);
  if (image !== null) uses.push({ capability: 'vision', param: image });
  if (isSet(body.reasoning_effort)) uses.push({ capability: 'reasoning', param: 'reasoning_effort' });
  if (isJsonSchemaFormat(body.response_format))
    uses.push({ capability: 'structuredOutputs', param: 'response_format' });
  return uses;
}
