/** The form REDIS_URL takes (node-redis's parser), quoted in every complaint about it. */
export const REDIS_URL_FORM = 'redis[s]://[[user][:password]@]host[:port][/db]';

/** Characters that end a URL's authority, so a password holding one must percent-encode it. */
const AUTHORITY_END = /[/?#]/;

/**
 * What is wrong with a Redis URL, in words an operator can act on, or undefined when node-redis
 * can use it. The URL itself is never quoted back: it may hold a password.
 */
export function redisUrlProblem(raw: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw);
  if (scheme === null) return 'must start with redis:// or rediss://';
  const protocol = scheme[1].toLowerCase();
  if (protocol !== 'redis' && protocol !== 'rediss') {
    return `must start with redis:// or rediss:// (got ${protocol}://)`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return unparsableReason(raw.slice(scheme[0].length));
  }
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) {
    return 'has a database index that is not a whole number (the path after host:port is /0, /1, ...)';
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return 'has a user name or password with a malformed %-escape (write % itself as %25)';
  }
  return undefined;
}

/** Why `new URL` refused the part after `scheme://`, as near as can be told without quoting it. */
function unparsableReason(rest: string): string {
  const at = rest.lastIndexOf('@');
  const end = AUTHORITY_END.exec(rest);
  if (at !== -1 && end !== null && end.index < at) {
    return 'is not a valid URL: a password or user name holding / ? # or @ must percent-encode it (%2F %3F %23 %40)';
  }
  const hostPort = rest.slice(at + 1, end === null ? undefined : end.index);
  const port = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(hostPort)?.[1];
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) > 65_535)) {
    return 'is not a valid URL: the port must be a number from 0 to 65535';
  }
  return 'is not a valid URL';
}
