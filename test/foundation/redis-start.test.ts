import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { runMain, spawnMain } from '../helpers/child.ts';
import { startOutcome } from '../helpers/child-logs.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';

const PASSWORD = 'hunter2-redis-secret';
const FORM = 'the form is redis[s]://[[user][:password]@]host[:port][/db]';

/** The one line a REDIS_URL gets at start, checked to hold no password. */
function complaintAbout(redisUrl: string): string {
  try {
    loadConfig({ REDIS_URL: redisUrl });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.ok(!error.message.includes(PASSWORD), error.message);
    return error.message;
  }
  assert.fail(`REDIS_URL=${redisUrl} was accepted`);
}

describe('REDIS_URL at start', () => {
  it('says what is wrong with a malformed URL, naming REDIS_URL and never the password', () => {
    assert.equal(
      complaintAbout('127.0.0.1:6379'),
      `REDIS_URL must start with redis:// or rediss://; ${FORM}`,
    );
    assert.equal(
      complaintAbout(`http://:${PASSWORD}@cache:6379`),
      `REDIS_URL must start with redis:// or rediss:// (got http://); ${FORM}`,
    );
    assert.equal(
      complaintAbout(`redis://:${PASSWORD}@cache:63a9`),
      `REDIS_URL is not a valid URL: the port must be a number from 0 to 65535; ${FORM}`,
    );
    assert.equal(
      complaintAbout(`redis://:${PASSWORD}#x@cache:6379`),
      `REDIS_URL is not a valid URL: a password or user name holding / ? # or @ must percent-encode it (%2F %3F %23 %40); ${FORM}`,
    );
    assert.equal(
      complaintAbout(`redis://:${PASSWORD}@cache:6379/zero`),
      `REDIS_URL has a database index that is not a whole number (the path after host:port is /0, /1, ...); ${FORM}`,
    );
    assert.equal(
      complaintAbout(`redis://:${PASSWORD}%zz@cache:6379`),
      `REDIS_URL has a user name or password with a malformed %-escape (write % itself as %25); ${FORM}`,
    );
    for (const good of [`redis://:${PASSWORD}@cache:6379/2`, 'rediss://user:p%40ss@cache', 'redis://cache']) {
      assert.equal(loadConfig({ REDIS_URL: good }).redisUrl, good);
    }
  });

  describe('serve', () => {
    let database: TestDatabase;
    const env = () => ({
      ...testSecrets(),
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_KEY_PREFIX: 'sy-redis-start:',
    });
    before(async () => {
      database = await createTestDatabase();
      await migrateTestDatabase(database.url);
    });
    after(() => database.drop());

    it('stops with one line for a malformed REDIS_URL', async () => {
      const { code, output } = await runMain(['serve'], {
        ...env(),
        REDIS_URL: `redis://:${PASSWORD}@cache:port`,
      });
      assert.equal(code, 1);
      assert.equal(
        output,
        `switchyard: REDIS_URL is not a valid URL: the port must be a number from 0 to 65535; ${FORM}\n`,
      );
    });

    it('fails the start, instead of serving 503, when Redis refuses the database index', async () => {
      const child = spawnMain(['serve'], { ...env(), REDIS_URL: 'redis://127.0.0.1:6379/99999' });
      const outcome = await startOutcome(child);
      if (outcome === 'listening') child.kill('SIGKILL');
      assert.equal(outcome, 1, child.output());
      assert.equal(
        child.output(),
        'switchyard: REDIS_URL: Redis refused the connection setup: ERR DB index is out of range (check the database index after host:port and the credentials)\n',
      );
    });
  });
});
