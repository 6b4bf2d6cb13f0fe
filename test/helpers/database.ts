import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { connectSql } from './sql.ts';

/** The local Postgres of this machine (DESIGN.md section 7): overridable for other machines. */
export const TEST_DATABASE_ADMIN_URL =
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh database for one test file, so files run in parallel without sharing rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `sy_test_${randomBytes(6).toString('hex')}`;
  const admin = connectSql(TEST_DATABASE_ADMIN_URL, 1);
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const dropper = connectSql(TEST_DATABASE_ADMIN_URL, 1);
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** Applies the migrations to the database at `url` through a connection of its own. */
export async function migrateTestDatabase(url: string): Promise<void> {
  const db = openDatabase({ url, poolMax: 1, timeoutMs: 5000 });
  try {
    await migrate(db.background);
  } finally {
    await db.close();
  }
}

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
