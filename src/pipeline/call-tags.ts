import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.ts';

/** The request header a call's tags arrive in (DESIGN.md section 5, Governance). */
export const TAGS_HEADER = 'x-switchyard-tags';

/** At most this many tags per call, the key's defaults included. */
export const MAX_TAGS = 10;

const TAG = /^[A-Za-z0-9._:-]{1,64}$/;
const TAG_RULE = `at most ${MAX_TAGS} tags, each 1-64 characters of A-Z a-z 0-9 . _ : -`;

/** The one empty tag list, shared by every call without tags. */
export const NO_TAGS: readonly string[] = Object.freeze([]);

/** A key's default `tags` in the admin API: validated like the header. */
export const tagListSchema = z
  .array(z.string().regex(TAG, `expected ${TAG_RULE}`))
  .max(MAX_TAGS, `expected ${TAG_RULE}`)
  .transform((tags) => [...new Set(tags)])
  .meta({
    description: `Default tags of the key's calls, merged after the call's own \`${TAGS_HEADER}\` (${TAG_RULE}).`,
  });

/**
 * The call's own tags from the header (comma-separated; spaces around a tag are dropped, as a
 * header sent twice arrives joined by ", "), deduplicated in order. An absent or empty header is
 * no tags; anything else that breaks the rule is a 400 naming the header.
 */
export function parseTagsHeader(value: string | string[] | undefined): readonly string[] {
  const text = Array.isArray(value) ? value.join(',') : value;
  if (text === undefined || text.trim() === '') return NO_TAGS;
  const tags = new Set<string>();
  const parts = text.split(',');
  for (let index = 0; index < parts.length; index += 1) {
    const tag = parts[index].trim();
    // Named by position, not echoed: a header is no place to repeat whatever a client put there.
    if (!TAG.test(tag)) throw badTags(`tag ${index + 1} is not valid`);
    tags.add(tag);
  }
  if (tags.size > MAX_TAGS) throw badTags(`${tags.size} tags given`);
  return [...tags];
}

/** The call's tags first, then the key's defaults not among them, at most MAX_TAGS. */
export function mergeTags(callTags: readonly string[], keyTags: readonly string[]): readonly string[] {
  if (keyTags.length === 0) return callTags;
  if (callTags.length === 0) return keyTags;
  return [...new Set([...callTags, ...keyTags])].slice(0, MAX_TAGS);
}

function badTags(problem: string): GatewayError {
  return new GatewayError('invalid_request', {
    param: TAGS_HEADER,
    message: `Invalid '${TAGS_HEADER}' header: ${problem}; expected ${TAG_RULE}, comma-separated.`,
  });
}
