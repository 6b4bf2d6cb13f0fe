/**
 * Chat Completions content parts -> Converse content blocks (Bedrock API Reference: ContentBlock,
 * ImageBlock, DocumentBlock, CachePointBlock). Converse takes media as bytes (or S3 locations) only.
 */
import type { ChatCacheControl, ChatContentPart } from '../../formats/chat-completions/wire.ts';
import { dataUrlAsBase64 } from '../shared/data-url.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import type {
  BedrockCachePoint,
  BedrockContentBlock,
  BedrockDocumentFormat,
  BedrockImageFormat,
} from './bedrock-wire-types.ts';

const IMAGE_FORMATS: Readonly<Record<string, BedrockImageFormat>> = Object.freeze({
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
});

/** DocumentBlock `format` by media type. */
const DOCUMENT_FORMATS: Readonly<Record<string, BedrockDocumentFormat>> = Object.freeze({
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
});

/**
 * The cache point a `cache_control` marker asks for after its block, or none. Converse caches what
 * precedes a `cachePoint`, as Anthropic caches up to a block with `cache_control`.
 */
export function cachePointAfter(cacheControl: ChatCacheControl | undefined): BedrockCachePoint[] {
  if (cacheControl?.type !== 'ephemeral') return [];
  const ttl = cacheControl.ttl === '5m' || cacheControl.ttl === '1h' ? cacheControl.ttl : undefined;
  return [{ cachePoint: ttl ? { type: 'default', ttl } : { type: 'default' } }];
}

/**
 * Remote image URLs are refused rather than fetched: fetching whatever URL a caller names from
 * inside the gateway's network is a server-side request forgery risk, and Converse takes bytes.
 */
function imageBlock(url: string, param: string): BedrockContentBlock {
  const data = dataUrlAsBase64(url);
  if (!data) {
    throw unsupportedParameter(
      param,
      'Bedrock takes images as bytes only: send the image as a base64 data URL (the gateway does not fetch image URLs).',
    );
  }
  const format = IMAGE_FORMATS[data.mediaType];
  if (!format)
    throw unsupportedParameter(param, 'The image format is not supported: use PNG, JPEG, GIF or WebP.');
  return { image: { format, source: { bytes: data.base64 } } };
}

/**
 * A DocumentBlock `name` may hold only letters, digits, single spaces, hyphens, parentheses and
 * square brackets (and the model reads it): the file name without its extension, cleaned.
 */
export function documentName(filename: string | undefined, fallback: string): string {
  const stem = (filename ?? '').replace(/\.[^.]*$/, '');
  const clean = stem
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean === '' ? fallback : clean;
}

function documentBlock(part: Extract<ChatContentPart, { type: 'file' }>, param: string, n: number) {
  const data = part.file.file_data ? dataUrlAsBase64(part.file.file_data) : null;
  if (!data) {
    throw unsupportedParameter(
      `${param}.file`,
      'Bedrock takes documents as bytes only: send file_data as a base64 data URL (file_id is not supported).',
    );
  }
  const format = DOCUMENT_FORMATS[data.mediaType];
  if (!format) {
    throw unsupportedParameter(
      `${param}.file.file_data`,
      'The document format is not supported: use PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, TXT or MD.',
    );
  }
  const name = documentName(part.file.filename, `document ${n}`);
  return { document: { format, name, source: { bytes: data.base64 } } };
}

/** Document names must be unique within a request: a repeated one gets ` (2)`, ` (3)`... */
export class DocumentNames {
  readonly #seen = new Map<string, number>();

  unique(name: string): string {
    const count = (this.#seen.get(name) ?? 0) + 1;
    this.#seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  }

  get count(): number {
    let total = 0;
    for (const n of this.#seen.values()) total += n;
    return total;
  }
}

/** The blocks of a user message's parts, each followed by its cache point when marked. */
export function userContentBlocks(
  content: string | ChatContentPart[],
  at: string,
  names: DocumentNames,
): BedrockContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((part, j): BedrockContentBlock[] => {
    const param = `${at}.content[${j}]`;
    switch (part.type) {
      case 'text':
        return [{ text: part.text }, ...cachePointAfter(part.cache_control)];
      case 'image_url':
        return [
          imageBlock(part.image_url.url, `${param}.image_url.url`),
          ...cachePointAfter(part.cache_control),
        ];
      case 'file': {
        const block = documentBlock(part, param, names.count + 1);
        block.document.name = names.unique(block.document.name);
        return [block, ...cachePointAfter(part.cache_control)];
      }
      default:
        throw unsupportedParameter(
          param,
          `Content parts of type ${part.type} are not supported by this model.`,
        );
    }
  });
}

/** The cache breakpoint of the last marked part of a content value, if any. */
export function cacheControlOf(
  content: string | readonly ChatContentPart[] | null | undefined,
): ChatCacheControl | undefined {
  if (content == null || typeof content === 'string') return undefined;
  for (let i = content.length - 1; i >= 0; i--) {
    const part = content[i];
    if ('cache_control' in part && part.cache_control) return part.cache_control;
  }
  return undefined;
}
