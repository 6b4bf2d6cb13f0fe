import type { ModelCapabilities } from '../../catalog/catalog-entry.ts';
import { isRecord } from '../../formats/json.ts';
import type { Operation } from '../../providers/types.ts';

export type Capability = keyof ModelCapabilities;

/** A capability a request uses, and the field that uses it (reported as `param`). */
export interface CapabilityUse {
  capability: Capability;
  param: string;
}

type Json = Record<string, unknown>;

function nonEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function isJsonSchemaFormat(format: unknown): boolean {
  return isRecord(format) && format.type === 'json_schema';
}

/** The path of the first part of `messages` (or `input` items) whose type is in `imageTypes`. */
function firstImagePart(items: unknown, field: string, imageTypes: ReadonlySet<unknown>): string | null {
  if (!Array.isArray(items)) return null;
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || !Array.isArray(item.content)) continue;
    for (const [j, part] of item.content.entries()) {
      if (!isRecord(part)) continue;
      if (imageTypes.has(part.type)) return `${field}.${i}.content.${j}`;
      // Anthropic tool results nest content blocks, images included.
      if (part.type === 'tool_result' && Array.isArray(part.content)) {
        const nested = part.content.findIndex((block) => isRecord(block) && imageTypes.has(block.type));
        if (nested !== -1) return `${field}.${i}.content.${j}.content.${nested}`;
      }
    }
  }
  return null;
}

const CHAT_IMAGE = new Set<unknown>(['image_url']);
const RESPONSES_IMAGE = new Set<unknown>(['input_image']);
const MESSAGES_IMAGE = new Set<unknown>(['image']);

/**
 * Chat Completions (OpenAI API reference): `tools` / legacy `functions`, `image_url` parts,
 * `reasoning_effort`, `response_format: { type: "json_schema" }`.
 */
function chatUses(body: Json): CapabilityUse[] {
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

/** Responses: `tools`, `input_image` parts, `reasoning`, `text.format: { type: "json_schema" }`. */
function responsesUses(body: Json): CapabilityUse[] {
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

/**
 * Messages (Anthropic API reference): `tools`, `image` blocks, `thinking: { type: "enabled" }`,
 * structured outputs as `output_config.format` (GA) or `output_format` (the beta's name).
 */
function messagesUses(body: Json): CapabilityUse[] {
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

/**
 * The capabilities of SPEC.md's model catalog entry (tools, vision, reasoning, structured
 * outputs) that a request uses. Only text-generating operations use any.
 */
export function capabilitiesUsed(operation: Operation, body: Json): CapabilityUse[] {
  switch (operation) {
    case 'chat.completions':
      return chatUses(body);
    case 'responses':
      return responsesUses(body);
    case 'messages':
      return messagesUses(body);
    default:
      return [];
  }
}

/**
 * Request fields through which each capability is used. A deployment profile that gives rules
 * for one of them declares the capability (the operator says the model takes that field).
 * Vision has no field of its own, so only the catalog can declare it.
 */
export const CAPABILITY_PARAMS: Readonly<Record<Capability, readonly string[]>> = Object.freeze({
  tools: ['tools', 'tool_choice', 'functions'],
  vision: [],
  reasoning: ['reasoning_effort', 'reasoning', 'thinking'],
  structuredOutputs: ['response_format', 'text', 'output_config', 'output_format'],
});
