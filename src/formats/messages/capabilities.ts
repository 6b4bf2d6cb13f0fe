import { type CapabilityUse, firstImagePart, isJsonSchemaFormat, nonEmptyArray } from '../capability-use.ts';
import { isRecord, type Json } from '../json.ts';

const MESSAGES_IMAGE = new Set<unknown>(['image']);

/**
 * Messages (Anthropic API reference): `tools`, `image` blocks, `thinking: { type: "enabled" }`,
 * structured outputs as `output_config.format` (GA) or `output_format` (the beta's name).
 */
export function capabilitiesUsed(body: Readonly<Json>): CapabilityUse[] {
  const uses: CapabilityUse[] = [];
  if (nonEmptyArray(body.tools)) uses.push({ capability: 'tools', param: 'tools' });
  const image = firstImagePart(body.messages, 'messages', MESSAGES_IMAGE);
  if (image !== null) uses.push({ capability: 'vision', param: image });
  if (isRecord(body.thinking) && body.thinking.type === 'enabled')
    uses.push({ capability: 'reasoning', param: 'thinking' });
  if (isRecord(body.output_config) && isJsonSchemaFormat(body.output_config.format))
    uses.push({ capability: 'structuredOutputs', param: 'output_config.format' });
  else if (isJsonSchemaFormat(body.output_format))
    uses.push({ capability: 'structuredOutputs', param: 'output_format' });
  return uses;
}
