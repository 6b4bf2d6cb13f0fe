/** A `data:` URL (RFC 2397) taken apart. */
export interface DataUrl {
  /** Lower case; `text/plain` when the URL names none. */
  mediaType: string;
  /** Whether `data` is base64 (the `;base64` marker); otherwise it is percent-encoded text. */
  base64: boolean;
  data: string;
}

/**
 * Splits a `data:` URL; null when the URL is not one. `base64` counts only as the last parameter,
 * whatever its case (RFC 2397 section 3 grammar; WHATWG Fetch, "data: URL processor").
 */
export function parseDataUrl(url: string): DataUrl | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(',');
  if (comma === -1) return null;
  const meta = url.slice('data:'.length, comma).split(';');
  const base64 = meta.at(-1)?.toLowerCase() === 'base64';
  const mediaType = meta[0] === '' ? 'text/plain' : meta[0].toLowerCase();
  return { mediaType, base64, data: url.slice(comma + 1) };
}

/** The bytes of a `data:` URL in base64, whichever way the URL carried them; null when it is not one. */
export function dataUrlAsBase64(url: string): { mediaType: string; base64: string } | null {
  const parsed = parseDataUrl(url);
  if (parsed === null) return null;
  const base64 = parsed.base64
    ? parsed.data
    : Buffer.from(decodeURIComponent(parsed.data), 'utf8').toString('base64');
  return { mediaType: parsed.mediaType, base64 };
}
