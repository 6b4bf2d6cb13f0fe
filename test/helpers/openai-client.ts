import OpenAI from 'openai';
import type { TestGateway } from './gateway.ts';

/** The official OpenAI client on the gateway, without retries (a failure, a 429 included, must reach the test). */
export function openaiClient(gw: TestGateway, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

/** A one-message Chat body for `model`, two tokens at most. */
export function hi(model: string, content = 'hi') {
  return { model, messages: [{ role: 'user' as const, content }], max_tokens: 2 };
}

/** The HTTP status of a call through the OpenAI client: 200, or the status of the APIError it threw. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return error.status;
  }
}
