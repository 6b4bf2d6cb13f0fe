// Keyword and topic block list: refuses a call whose text mentions a blocked keyword or a word of
// a blocked topic. The lists come from the extension's `config`:
//   { "keywords": ["..."], "topics": { "name": ["word", ...] }, "status": 403 }
// Matching is on whole words, case-insensitive. The refusal names the topic, not the words.

function textOf(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join(' ');
  if (value !== null && typeof value === 'object') {
    return [value.content, value.text, value.input].map(textOf).join(' ');
  }
  return '';
}

function escape(word) {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function matcher(words) {
  if (!Array.isArray(words) || words.length === 0) return null;
  return new RegExp(`\\b(?:${words.map(escape).join('|')})\\b`, 'i');
}

export function beforeUpstream(call) {
  const config = call.config ?? {};
  const body = call.body;
  const text = [textOf(body.messages), textOf(body.system), textOf(body.input), textOf(body.instructions)].join('\n');
  const status = Number.isInteger(config.status) ? config.status : 403;
  if (matcher(config.keywords)?.test(text)) {
    return { reject: { status, message: 'The request mentions a blocked keyword.' } };
  }
  for (const [topic, words] of Object.entries(config.topics ?? {})) {
    if (matcher(words)?.test(text)) {
      return { reject: { status, message: `Requests about ${topic} are not allowed here.` } };
    }
  }
  return undefined;
}
