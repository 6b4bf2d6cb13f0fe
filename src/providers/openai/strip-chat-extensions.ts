/**
 * Chat fields that are not OpenAI's but that translation writes and other servers read: `top_k`
 * (vLLM, SGLang, Ollama) and `cache_control` on content parts and tools (the LiteLLM / OpenRouter
 * prompt-caching convention). OpenAI and Azure validate their request schema and would refuse the
 * whole call for them, so they are taken out for those two; nothing is copied when none is there.
 */
export function stripChatExtensions(body: Record<string, unknown>): Record<string, unknown> {
  let out = body;
  if ('top_k' in out) {
    const { top_k: _topK, ...rest } = out;
    out = rest;
  }
  const messages = withoutCacheControl(out.messages, (message) => withoutCacheControl(message.content));
  if (messages !== out.messages) out = { ...out, messages };
  const tools = withoutCacheControl(out.tools);
  if (tools !== out.tools) out = { ...out, tools };
  return out;
}

type Item = Record<string, unknown>;

/**
 * The list with `cache_control` removed from its items (and, with `inner`, from what `inner`
 * returns for an item's content); the same list, with nothing allocated, when nothing changes.
 */
function withoutCacheControl(list: unknown, inner?: (item: Item) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  let out: unknown[] | null = null;
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (typeof item !== 'object' || item === null) continue;
    let next = item as Item;
    if ('cache_control' in next) {
      const { cache_control: _cache, ...rest } = next;
      next = rest;
    }
    const content = inner === undefined ? next.content : inner(next);
    if (content !== next.content) next = { ...next, content };
    if (next === item) continue;
    out ??= [...list];
    out[i] = next;
  }
  return out ?? list;
}
