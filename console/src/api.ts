import { forgetKey, storedKey } from './session.ts';

/** An error answer of the gateway, in its OpenAI shape: `param` names the field a 400 is about. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly param: string | null;

  constructor(status: number, message: string, code: string | null, param: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Sent on the window when the kept master key is refused: the console goes back to sign-in. */
export const KEY_REFUSED_EVENT = 'switchyard:key-refused';

/** A call to the gateway with the master key of this tab (or the one given, to check it). */
export async function api<T>(method: string, path: string, body?: unknown, given?: string): Promise<T> {
  const key = given ?? storedKey();
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const text = await response.text();
  const json = text === '' ? null : parseJson(text);
  if (response.status === 401 && given === undefined && key !== null) {
    // The kept key stopped working (MASTER_KEY changed): forget it rather than fail every page.
    forgetKey();
    dispatchEvent(new Event(KEY_REFUSED_EVENT));
  }
  if (!response.ok) throw errorOf(response.status, json);
  return json as T;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: { message: text } };
  }
}

function errorOf(status: number, json: unknown): ApiError {
  const error = (json as { error?: { message?: string; code?: string; param?: string } } | null)?.error;
  return new ApiError(
    status,
    error?.message ?? `The gateway answered ${status}.`,
    error?.code ?? null,
    error?.param ?? null,
  );
}

/** A query string of the given parameters, leaving out the empty ones. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Any failure as an ApiError, so a form can read `param` whatever went wrong. */
export function asApiError(reason: unknown): ApiError {
  return reason instanceof ApiError ? reason : new ApiError(0, messageOf(reason), null, null);
}
