import { GatewayError } from '../../errors/gateway-error.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';
import { OPENAI_DEFAULT_BASE_URL, openAIProviderOptionsSchema } from './openai-config.ts';

/**
 * Where and how to reach an OpenAI-format upstream: the only two things that differ between
 * OpenAI, Azure OpenAI and compatible servers. The operation adapters take one of these.
 */
export interface OpenAIEndpoint {
  /** The absolute URL of an operation path (`/chat/completions`) for a deployment. */
  url(target: DeploymentTarget, path: string): string;
  /** Authentication and other fixed headers. */
  headers(target: DeploymentTarget): Record<string, string>;
  /**
   * True for servers that take the Chat fields OpenAI lacks (`top_k`: vLLM, SGLang, Ollama;
   * `cache_control` on parts and tools: LiteLLM, OpenRouter). OpenAI and Azure refuse unknown
   * fields, so those are not sent to them (strip-chat-extensions.ts).
   */
  readonly takesChatExtensions?: boolean;
}

export const openAIEndpoint: OpenAIEndpoint = {
  url(target, path) {
    return joinUrl(target.baseUrl ?? OPENAI_DEFAULT_BASE_URL, path);
  },
  headers(target) {
    const headers: Record<string, string> = {};
    if (target.apiKey !== null) headers.authorization = `Bearer ${target.apiKey}`;
    const options = openAIProviderOptionsSchema.safeParse(target.providerOptions);
    if (!options.success) {
      throw new GatewayError('internal_error', {
        detail: { deployment: target.id, reason: 'invalid providerOptions', issues: options.error.issues },
      });
    }
    if (options.data.organization !== undefined) headers['openai-organization'] = options.data.organization;
    if (options.data.project !== undefined) headers['openai-project'] = options.data.project;
    return headers;
  },
};
