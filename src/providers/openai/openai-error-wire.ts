import { z } from 'zod';

/** OpenAI's error body (API reference, "Error codes"); Azure and most compatible servers reuse it. */
export const openAIErrorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string().nullish(),
    type: z.string().nullish(),
    param: z.string().nullish(),
    // Azure sends codes such as "429" or "content_filter"; some compatible servers send numbers.
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});
export type OpenAIErrorBody = z.infer<typeof openAIErrorBodySchema>;

export interface OpenAIErrorDetail {
  message: string | undefined;
  type: string | undefined;
  code: string | undefined;
  /** The request field at fault, when the upstream names one. */
  param?: string;
}

/** Reads code, type and message from an error body, whatever its shape; text bodies become the message. */
export function readOpenAIError(body: unknown): OpenAIErrorDetail {
  const parsed = openAIErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { message, type, code, param } = parsed.data.error;
    return {
      message: message ?? undefined,
      type: type ?? undefined,
      code: code == null ? undefined : String(code),
      param: param ?? undefined,
    };
  }
  // vLLM and some proxies answer {"message": ..., "type": ..., "code": ...} without the wrapper.
  const flat = openAIErrorBodySchema.shape.error.safeParse(body);
  if (flat.success && (flat.data.message != null || flat.data.code != null)) {
    const { message, type, code } = flat.data;
    return {
      message: message ?? undefined,
      type: type ?? undefined,
      code: code == null ? undefined : String(code),
    };
  }
  if (typeof body === 'string' && body.length > 0) return { message: body, type: undefined, code: undefined };
  return { message: undefined, type: undefined, code: undefined };
}
