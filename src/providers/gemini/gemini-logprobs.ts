import type { ChatLogprobs, ChatTokenLogprob } from '../../formats/chat-completions/wire.ts';
import type { GeminiLogprobsResult } from './gemini-wire-types.ts';

type GeminiTokenLogprob = NonNullable<GeminiLogprobsResult['chosenCandidates']>[number];

function tokenLogprob(candidate: GeminiTokenLogprob): ChatTokenLogprob {
  const token = candidate.token ?? '';
  return { token, logprob: candidate.logProbability ?? 0, bytes: [...Buffer.from(token, 'utf8')] };
}

/**
 * Gemini `logprobsResult` (API reference: LogprobsResult) -> Chat Completions `logprobs.content`:
 * step i's chosen token, with step i's top candidates as its `top_logprobs`. `bytes` is the
 * token's UTF-8, which Gemini does not send apart.
 */
export function toChatLogprobs(result: GeminiLogprobsResult | undefined): ChatLogprobs | null {
  if (!result?.chosenCandidates) return null;
  const top = result.topCandidates ?? [];
  return {
    content: result.chosenCandidates.map((chosen, step) => ({
      ...tokenLogprob(chosen),
      top_logprobs: (top[step]?.candidates ?? []).map(tokenLogprob),
    })),
    refusal: null,
  };
}
