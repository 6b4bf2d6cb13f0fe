import {
  type CapabilityUse,
  firstImagePart,
  isJsonSchemaFormat,
  isSet,
  nonEmptyArray,
} from '../capability-use.ts';
import { isRecord, type Json } from '../json.ts';

const RESPONSES_IMAGE = new Set<unknown>(['input_image']);

/** Responses: `tools`, `input_image` parts, `reasoning`, `text.format: { type: "json_schema" }`. */
export function capabilitiesUsed(body: Readonly<Json>): CapabilityUse[] {
  const uses: CapabilityUse[] = [];
  if (nonEmptyArray(body.tools)) uses.push({ capability: 'tools', param: 'tools' });
  const image = firstImagePart(body.input, 'input', RESPONSES_IMAGE);
  if (image !== null) uses.push({ capability: 'vision', param: image });
  if (isRecord(body.reasoning) && isSet(body.reasoning.effort))
    uses.push({ capability: 'reasoning', param: 'reasoning.effort' });
  if (isRecord(body.text) && isJsonSchemaFormat(body.text.format))
    uses.push({ capability: 'structuredOutputs', param: 'text.format' });
  return uses;
}
