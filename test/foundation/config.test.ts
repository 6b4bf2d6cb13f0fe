import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { runMain } from '../helpers/child.ts';
import { testSecrets } from '../helpers/secrets.ts';

const DB = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

describe('configuration', () => {
  it('reads CORS_ORIGINS as * or a list of exact origins', () => {
    assert.equal(loadConfig({}).corsOrigins, undefined);
    assert.equal(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, '*');
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' }).corsOrigins,
      ['https://a.example.com', 'http://localhost:5173'],
    );
    assert.match(
      errorOf({ CORS_ORIGINS: 'https://a.example.com/' }),
      /^CORS_ORIGINS must be \* or .*got "https:\/\/a.example.com\/"/,
    );
    assert.match(errorOf({ CORS_ORIGINS: 'a.example.com' }), /^CORS_ORIGINS must be/);
  });

  it('defaults to variant b, port 4000, embedded storage', () => {
    const config = loadConfig({});
    assert.equal(config.variant, 'b');
    assert.equal(config.port, 4000);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
  });

  it('names the variable and the rule', () => {
    assert.equal(errorOf({ GATEWAY_VARIANT: 'c' }), 'GATEWAY_VARIANT must be a or b (got "c")');
    assert.equal(
      errorOf({ MASTER_KEY: 'short' }),
      'MASTER_KEY must be at least 32 characters (GATEWAY_VARIANT=b)',
    );
    assert.equal(
      errorOf({ GATEWAY_VARIANT: 'a', MASTER_KEY: 'short' }),
      'MASTER_KEY must be at least 8 characters (GATEWAY_VARIANT=a)',
    );
    assert.equal(errorOf({ PORT: 'eighty' }), 'PORT must be an integer between 0 and 65535 (got "eighty")');
    assert.equal(
      errorOf({ DATABASE_URL: 'mysql://x' }),
      'DATABASE_URL must use postgres: or postgresql: (got mysql:)',
    );
    assert.equal(errorOf({ OTEL_ENABLED: 'yes' }), 'OTEL_ENABLED must be true or false (got "yes")');
    assert.equal(
      errorOf({ OBSERVABILITY_PAYLOAD_SAMPLE_RATE: '2' }),
      'OBSERVABILITY_PAYLOAD_SAMPLE_RATE must be a number between 0 and 1 (got "2")',
    );
    assert.equal(
      errorOf({ UPSTREAM_ERROR_MESSAGES: 'verbose' }),
      'UPSTREAM_ERROR_MESSAGES must be one of generic, passthrough (got "verbose")',
    );
  });

  it('keeps upstream error messages generic unless the operator asks for passthrough', () => {
    assert.equal(loadConfig({}).upstreamErrorMessages, 'generic');
    assert.equal(loadConfig({ UPSTREAM_ERROR_MESSAGES: 'passthrough' }).upstreamErrorMessages, 'passthrough');
  });

  it('bounds the HTTP server and upstream answers, and checks the header bound against the request bound', () => {
    const { http, upstreamMaxAnswerBytes } = loadConfig({});
    assert.deepEqual(http, {
      connectionTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 72_000,
      maxRequestsPerSocket: 1000,
    });
    assert.equal(upstreamMaxAnswerBytes, 64 * 1024 * 1024);
    assert.equal(
      errorOf({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' }),
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (got 5000 > 1000)',
    );
    assert.equal(
      errorOf({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '-1' }),
      'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer between 100 and 3600000 (got "-1")',
    );
    assert.equal(
      errorOf({ UPSTREAM_MAX_ANSWER_BYTES: '10' }),
      'UPSTREAM_MAX_ANSWER_BYTES must be an integer between 1024 and 1073741824 (got "10")',
    );
  });

  it('demands every secret from the environment once DATABASE_URL is set', () => {
    assert.equal(errorOf({ ...DB }), 'MASTER_KEY must be set (required when DATABASE_URL is set)');
    const { MASTER_KEY } = testSecrets();
    assert.equal(
      errorOf({ ...DB, MASTER_KEY }),
      'ENCRYPTION_KEYRING must be set (required when DATABASE_URL is set) (GATEWAY_VARIANT=b)',
    );
    assert.equal(
      errorOf({ ...DB, MASTER_KEY, GATEWAY_VARIANT: 'a' }),
      'CREDENTIALS_ENCRYPTION_KEY must be set (required when DATABASE_URL is set) (GATEWAY_VARIANT=a)',
    );
  });

  it('a bad value stops the start with one line and status 1', async () => {
    const { code, output } = await runMain(['serve'], { ...DB, ...testSecrets(), MASTER_KEY: 'too-short' });
    assert.equal(code, 1);
    assert.equal(output, 'switchyard: MASTER_KEY must be at least 32 characters (GATEWAY_VARIANT=b)\n');
  });

  it('a bad keyring stops the start naming the variable, without key material', async () => {
    const secrets = testSecrets();
    const { code, output } = await runMain(['serve'], { ...DB, ...secrets, ACTIVE_ENCRYPTION_KEY_ID: 'k9' });
    assert.equal(code, 1);
    assert.equal(output.trim().split('\n').length, 1);
    assert.match(output, /ACTIVE_ENCRYPTION_KEY_ID "k9" is not a key id of ENCRYPTION_KEYRING/);
    assert.ok(!output.includes(JSON.parse(secrets.ENCRYPTION_KEYRING).k1));
  });
});
