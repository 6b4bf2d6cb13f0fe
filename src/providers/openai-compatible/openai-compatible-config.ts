import type { OpenAIOperation } from '../openai/openai-config.ts';

/** Operations every OpenAI-format server is expected to serve (vLLM, Ollama, Groq, Together, ...). */
export const OPENAI_COMPATIBLE_OPERATIONS: readonly OpenAIOperation[] = Object.freeze([
  'chat.completions',
  'embeddings',
]);
