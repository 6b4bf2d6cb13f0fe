/**
 * Input items as `GET /v1/responses/{id}/input_items` lists them (OpenAI's item shapes): each has a
 * `type` and an `id`, and a message's text content is a list of parts. Items stored without an id
 * (a string input, a message given by its role) get one made of the response id and their
 * position, the same on every read, so `after` pages through them. The stored items are not
 * changed: they are what the upstream is sent.
 */
import type { ConversationItem } from '../../responses-state/index.ts';

const ID_PREFIXES: Readonly<Record<string, string>> = { message: 'msg', function_call_output: 'fco' };

export function listedItems(responseId: string, items: readonly ConversationItem[]): ConversationItem[] {
  const suffix = responseId.replace(/^resp_/, '');
  return items.map((item, index) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const listed: ConversationItem = { ...item, type };
    if (typeof item.id !== 'string') listed.id = `${ID_PREFIXES[type] ?? 'item'}_${suffix}_${index}`;
    if (type === 'message' && typeof item.content === 'string') {
      const part = item.role === 'assistant' ? 'output_text' : 'input_text';
      listed.content = [{ type: part, text: item.content }];
    }
    return listed;
  });
}
