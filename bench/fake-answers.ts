/**
 * The fake upstream's answers, built once at start so that answering costs a buffer write: the
 * floor of scenario (a) must measure Node's HTTP stack, not the fake's JSON work. Shapes follow
 * the OpenAI API reference ("Chat Completions": the chat completion object and the chunk object).
 */

/** The upstream model name the fake reports; the bench deployment's `upstreamModel`. */
export const FAKE_MODEL = 'bench-upstream';
const CREATED = 1_700_000_000;
const PROMPT_TOKENS = 24;

function usage(completionTokens: number): object {
  return {
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: completionTokens,
    total_tokens: PROMPT_TOKENS + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

function sseEvent(data: unknown): Buffer {
  return Buffer.from(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function wordsOf(chunks: number): string[] {
  return Array.from({ length: chunks }, (_, i) => `word${i}`);
}

/**
 * A whole `chat.completion` body whose content is `chunks` words. `chunks` is also the answer's
 * token count: one word per content delta of the stream.
 */
export function buildJsonAnswer(chunks: number): Buffer {
  const words = wordsOf(chunks);
  const json = {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: FAKE_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: words.join(' '), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: usage(chunks),
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
  };
  return Buffer.from(JSON.stringify(json));
}

/** One buffer per SSE event: role, `chunks` content deltas, finish, usage, `[DONE]`. */
export function buildSseAnswer(chunks: number): readonly Buffer[] {
  const words = wordsOf(chunks);
  const chunk = (delta: object, finishReason: string | null = null) =>
    sseEvent({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: FAKE_MODEL,
      system_fingerprint: 'fp_bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...words.map((word, i) => chunk({ content: i === 0 ? word : ` ${word}` })),
    chunk({}, 'stop'),
    // Sent whether or not the client asked for `stream_options.include_usage`: the gateway always
    // asks (it needs the tokens), and the direct scenarios ask too, so both read the same bytes.
    sseEvent({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: FAKE_MODEL,
      system_fingerprint: 'fp_bench',
      choices: [],
      usage: usage(chunks),
    }),
    sseEvent('[DONE]'),
  ];
}
