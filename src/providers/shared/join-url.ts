/** Joins a base URL (origin plus optional path prefix) and an operation path, with one slash between. */
export function joinUrl(base: string, path: string): string {
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === 47) end--;
  return `${base.slice(0, end)}${path.startsWith('/') ? path : `/${path}`}`;
}
