import OpenAI from 'openai';
import type { TestGateway } from './gateway.ts';

/** The official OpenAI client on the gateway, without retries (a failure, a 429 included, must reach the test). */
export function openaiClient(gw: TestGateway, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}
