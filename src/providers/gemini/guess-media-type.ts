/** Media types Gemini takes as file data, by file extension (Gemini API, "Image/Audio/Video/Document understanding"). */
const BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  mov: 'video/mov',
  webm: 'video/webm',
});

/** The media type of a URL from its path's extension; `fallback` when there is none or it is unknown. */
export function guessMediaType(url: string, fallback: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return fallback;
  }
  const dot = path.lastIndexOf('.');
  if (dot === -1 || dot < path.lastIndexOf('/')) return fallback;
  const extension = path.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension] : fallback;
}
