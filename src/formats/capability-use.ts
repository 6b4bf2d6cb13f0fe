/**
 * What every format's capabilities.ts shares: a capability of the model catalog a request uses,
 * the field that uses it, and the readers of the fields the formats share (tools, image parts,
 * JSON-schema output formats). ClientFormat.capabilitiesUsed answers it per format.
 */
import type { ModelCapabilities } from '../catalog/catalog-entry.ts';
import { isRecord } from './json.ts';

export type Capability = keyof ModelCapabilities;

/** A capability a request uses, and the field that uses it (reported as `param`). */
export interface CapabilityUse {
  capability: Capability;
  param: string;
}

export function nonEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function isJsonSchemaFormat(format: unknown): boolean {
  return isRecord(format) && format.type === 'json_schema';
}

/** The path of the first part of `messages` (or `input` items) whose type is in `imageTypes`. */
export function firstImagePart(
  items: unknown,
  field: string,
  imageTypes: ReadonlySet<unknown>,
): string | null {
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
