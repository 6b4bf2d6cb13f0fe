/**
 * Deterministic embeddings, images and transcription answers of the OpenAI fake. Embeddings are
 * derived from a hash of the input; images are a 1x1 PNG (or a URL naming the request);
 * transcripts name the uploaded file, its size and the model that received it.
 */
import { createHash } from 'node:crypto';
import { countWords, type MultipartBody, type UploadedFile } from './fake-server.ts';
import { FAKE_CREATED } from './openai-fake-plan.ts';

type Json = Record<string, unknown>;

/** A 1x1 transparent PNG. */
export const FAKE_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const DEFAULT_EMBEDDING_DIMENSIONS = 8;

/** A deterministic unit-ish vector for a text: the same input always gives the same floats. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  let block = Buffer.alloc(0);
  for (let i = 0; vector.length < dimensions; i++) {
    if (block.length === 0) block = createHash('sha256').update(`${i}:${text}`).digest();
    vector.push(Math.round(((block[0] / 255) * 2 - 1) * 1e6) / 1e6);
    block = block.subarray(1);
  }
  return vector;
}

export function embeddings(body: Json, model: string): Json {
  const raw = body.input;
  const inputs: string[] = Array.isArray(raw)
    ? raw.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    : [String(raw)];
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : DEFAULT_EMBEDDING_DIMENSIONS;
  const base64 = body.encoding_format === 'base64';
  const data = inputs.map((text, index) => {
    const vector = fakeEmbedding(text, dimensions);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((sum, text) => sum + countWords(text), 0);
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

function imageData(
  count: number,
  responseFormat: unknown,
  name: string,
  revisedPrompt: string | null,
): Json[] {
  return Array.from({ length: count }, (_, i) => {
    const item: Json =
      responseFormat === 'url'
        ? { url: `https://images.fake.invalid/${name}-${i}.png` }
        : { b64_json: FAKE_PNG_BASE64 };
    if (revisedPrompt !== null) item.revised_prompt = revisedPrompt;
    return item;
  });
}

/** gpt-image models report token usage (API reference, "The image generation response"). */
function imageUsage(model: string, prompt: string, count: number): Json | undefined {
  if (!model.startsWith('gpt-image')) return undefined;
  const input = countWords(prompt);
  const output = 100 * count;
  return {
    input_tokens: input,
    input_tokens_details: { text_tokens: input, image_tokens: 0 },
    output_tokens: output,
    total_tokens: input + output,
  };
}

export function imageGeneration(body: Json, model: string, sequence: number): Json {
  const count = typeof body.n === 'number' ? body.n : 1;
  const prompt = String(body.prompt ?? '');
  const answer: Json = {
    created: FAKE_CREATED,
    data: imageData(count, body.response_format, `gen${sequence}`, prompt),
  };
  const usage = imageUsage(model, prompt, count);
  if (usage !== undefined) answer.usage = usage;
  return answer;
}

/** The uploaded image of an edit or variation: `image`, or the first of `image[]`. */
export function uploadedImage(body: MultipartBody): UploadedFile | undefined {
  return body.files.find((file) => file.field === 'image' || file.field === 'image[]');
}

export function imageEdit(body: MultipartBody, model: string, sequence: number): Json {
  const image = uploadedImage(body)!;
  const count = Number(body.fields.n ?? 1);
  const prompt = body.fields.prompt ?? '';
  const revised = `${prompt} (edited ${image.filename}, ${image.size} bytes)`;
  const answer: Json = {
    created: FAKE_CREATED,
    data: imageData(count, body.fields.response_format, `edit${sequence}`, revised),
  };
  const usage = imageUsage(model, prompt, count);
  if (usage !== undefined) answer.usage = usage;
  return answer;
}

export function imageVariation(body: MultipartBody, sequence: number): Json {
  const count = Number(body.fields.n ?? 1);
  return {
    created: FAKE_CREATED,
    data: imageData(count, body.fields.response_format, `var${sequence}`, null),
  };
}

/** Seconds of audio the fake hears in a file: its size at 16 kHz, 16-bit mono. */
export function audioSeconds(file: UploadedFile): number {
  return Math.round((file.size / 32_000) * 100) / 100;
}

export interface TranscriptionAnswer {
  contentType: string;
  body: string | Json;
}

/** Answers in the requested `response_format` (json by default; text, srt, vtt as text). */
export function transcription(body: MultipartBody, model: string): TranscriptionAnswer {
  const file = body.files.find((f) => f.field === 'file')!;
  const text = `transcript of ${file.filename} (${file.size} bytes) by ${model}`;
  const seconds = audioSeconds(file);
  switch (body.fields.response_format ?? 'json') {
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
    case 'srt':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: `1\n00:00:00,000 --> 00:00:01,000\n${text}\n\n`,
      };
    case 'vtt':
      return {
        contentType: 'text/vtt; charset=utf-8',
        body: `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${text}\n\n`,
      };
    case 'verbose_json':
      return {
        contentType: 'application/json',
        body: {
          task: 'transcribe',
          language: body.fields.language ?? 'english',
          duration: seconds,
          text,
          segments: [],
        },
      };
    default: {
      const usage = model.startsWith('whisper')
        ? { type: 'duration', seconds: Math.ceil(seconds) }
        : {
            type: 'tokens',
            input_tokens: Math.ceil(seconds * 10),
            output_tokens: countWords(text),
            total_tokens: Math.ceil(seconds * 10) + countWords(text),
          };
      return { contentType: 'application/json', body: { text, usage } };
    }
  }
}
