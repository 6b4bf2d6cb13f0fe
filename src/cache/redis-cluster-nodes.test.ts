import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.ts';
import { ConfigError } from '../errors/config-error.ts';
import { parseClusterNodes } from './redis-cluster-nodes.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('takes host:port seeds, with credentials and TLS from the first entry for every node', () => {
    assert.deepEqual(parseClusterNodes('10.0.0.1:7000, 10.0.0.2:7001'), {
      urls: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001'],
      username: undefined,
      password: undefined,
      tls: false,
    });
    assert.deepEqual(parseClusterNodes('rediss://app:s%40cret@a.example:6380,b.example:6380'), {
      urls: ['rediss://a.example:6380', 'rediss://b.example:6380'],
      username: 'app',
      password: 's@cret',
      tls: true,
    });
  });

  it('says what is wrong with an entry, never quoting a password', () => {
    assert.equal(parseClusterNodes(' , '), 'names no node');
    assert.match(String(parseClusterNodes('a:7000,b:port')), /^entry 2 .*port must be a number/);
    assert.match(String(parseClusterNodes('redis://u:pw@a:7000/3')), /^entry 1 has a database index/);
    const problem = String(parseClusterNodes('redis://u:hunter2@a:7000,http://b:1'));
    assert.match(problem, /^entry 2 must start with redis:\/\/ or rediss:\/\//);
    assert.ok(!problem.includes('hunter2'));
  });

  it('is refused beside REDIS_URL, and names the variable when malformed', () => {
    const secrets = { MASTER_KEY: 'sk-master-0123456789abcdef0123456789abcdef' };
    assert.throws(
      () => loadConfig({ ...secrets, REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'a:7000' }),
      (error: unknown) =>
        error instanceof ConfigError && /REDIS_URL and REDIS_CLUSTER_NODES are both set/.test(error.message),
    );
    assert.throws(
      () => loadConfig({ ...secrets, REDIS_CLUSTER_NODES: 'a:99999' }),
      (error: unknown) =>
        error instanceof ConfigError && error.message.startsWith('REDIS_CLUSTER_NODES entry 1'),
    );
  });
});
