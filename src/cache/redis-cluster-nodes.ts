import type { RedisClusterNodes } from './redis-cluster-connection.ts';
import { redisUrlProblem } from './redis-url.ts';

/** The form REDIS_CLUSTER_NODES takes, quoted in every complaint about it. */
export const REDIS_CLUSTER_NODES_FORM =
  'host:port,host:port,... or redis[s]://[[user][:password]@]host:port,host:port,...';

/**
 * The seed nodes of `REDIS_CLUSTER_NODES`: a comma-separated list of `host:port`. Credentials and
 * TLS are written as in REDIS_URL on the first entry (`rediss://user:password@host:port`) and
 * apply to every node, the ones discovered included; a later entry may repeat them. Answers what
 * is wrong, in words an operator can act on (never quoting a password), or the nodes.
 */
export function parseClusterNodes(raw: string): RedisClusterNodes | string {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return 'names no node';
  const first = withScheme(entries[0], 'redis');
  const problem = redisUrlProblem(first);
  if (problem !== undefined) return `entry 1 ${problem}`;
  const seed = new URL(first);
  const scheme = seed.protocol === 'rediss:' ? 'rediss' : 'redis';
  const urls: string[] = [];
  for (const [i, entry] of entries.entries()) {
    const url = i === 0 ? first : withScheme(entry, scheme);
    const entryProblem = redisUrlProblem(url);
    if (entryProblem !== undefined) return `entry ${i + 1} ${entryProblem}`;
    const parsed = new URL(url);
    if (parsed.pathname !== '' && parsed.pathname !== '/') {
      return `entry ${i + 1} has a database index: a Redis Cluster has database 0 only`;
    }
    if (parsed.hostname === '') return `entry ${i + 1} has no host`;
    urls.push(`${scheme}://${parsed.host}`);
  }
  return {
    urls,
    username: seed.username === '' ? undefined : decodeURIComponent(seed.username),
    password: seed.password === '' ? undefined : decodeURIComponent(seed.password),
    tls: scheme === 'rediss',
  };
}

function withScheme(entry: string, scheme: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `${scheme}://${entry}`;
}
