import type { z } from 'zod';
import type { Endpoint, EndpointBody } from '../../pipeline/endpoint.ts';
import {
  chatCompletionsBody,
  embeddingsBody,
  imageEditsForm,
  imageFormFields,
  imageGenerationsBody,
  imageVariationsForm,
  messagesBody,
  responsesBody,
  transcriptionForm,
  transcriptionFormFields,
} from './body-schemas.ts';

const body = (schema: z.ZodType) => schema as z.ZodType<EndpointBody>;

/**
 * The inference endpoints (SPEC.md, Endpoints: Inference), one descriptor each for the one
 * generic handler. `streamable` follows what the adapters can stream: images and transcriptions
 * answer in one piece.
 */
export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  {
    operation: 'chat.completions',
    path: '/chat/completions',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(chatCompletionsBody),
    streamable: true,
    summary: 'Chat Completions (OpenAI format)',
  },
  {
    operation: 'responses',
    path: '/responses',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(responsesBody),
    streamable: true,
    summary: 'Responses (OpenAI format); `store: true` is served as false for now',
  },
  {
    operation: 'embeddings',
    path: '/embeddings',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(embeddingsBody),
    streamable: false,
    summary: 'Embeddings (OpenAI format)',
  },
  {
    operation: 'images.generations',
    path: '/images/generations',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(imageGenerationsBody),
    streamable: false,
    summary: 'Image generation (OpenAI format)',
  },
  {
    operation: 'images.edits',
    path: '/images/edits',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(imageFormFields),
    docSchema: imageEditsForm,
    streamable: false,
    summary: 'Image edit (OpenAI format, multipart/form-data)',
  },
  {
    operation: 'images.variations',
    path: '/images/variations',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(imageFormFields),
    docSchema: imageVariationsForm,
    streamable: false,
    summary: 'Image variation (OpenAI format, multipart/form-data)',
  },
  {
    operation: 'audio.transcriptions',
    path: '/audio/transcriptions',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(transcriptionFormFields),
    docSchema: transcriptionForm,
    streamable: false,
    summary: 'Audio transcription (OpenAI format, multipart/form-data)',
  },
  {
    operation: 'messages',
    path: '/messages',
    shape: 'anthropic',
    requestFormat: 'json',
    bodySchema: body(messagesBody),
    streamable: true,
    summary: 'Messages (Anthropic format; errors in the Anthropic shape)',
  },
]);
