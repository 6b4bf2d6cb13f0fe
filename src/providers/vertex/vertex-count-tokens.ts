/**
 * Claude's token count on Vertex AI ("Count tokens for Claude models"): `rawPredict` on the
 * publisher's model `count-tokens`, with the client's Messages body naming the Claude model in
 * `model`, answered `{ input_tokens }` as Anthropic's own endpoint answers. Gemini models are left
 * to the gateway's estimate: a Messages body is not what a Gemini deployment is sent.
 */
import { anthropicCountTokens } from '../anthropic/anthropic-count-tokens.ts';
import type { TokenCountAdapter } from '../types.ts';
import { isVertexClaude, vertexModelUrl } from './vertex-config.ts';

export const vertexCountTokens: TokenCountAdapter = {
  supports: isVertexClaude,
  buildRequest({ target, body }) {
    return {
      url: vertexModelUrl(target, 'rawPredict', 'count-tokens'),
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ...body, model: target.upstreamModel }),
    };
  },
  // The answer is Anthropic's: `{ input_tokens }`.
  parseResponse: anthropicCountTokens.parseResponse,
};
