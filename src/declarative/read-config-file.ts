import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Document, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigFileError } from './config-file-error.ts';
import { type ConfigFile, configFileSchema, ENV_REFERENCE } from './file-schema.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A secret (or an extension's module) as applied: its value, and the reference it came from (what is stored and exported). */
export interface ResolvedSecret {
  value: string;
  ref: string;
}

/**
 * A validated file with its secrets and modules read: `apiKeys[i]` is deployment i's,
 * `keySecrets[i]` key i's, `extensionSources[i]` extension i's module (its text, and the path as
 * the file gives it).
 */
export interface LoadedConfig {
  path: string;
  file: ConfigFile;
  apiKeys: (ResolvedSecret | undefined)[];
  keySecrets: (ResolvedSecret | undefined)[];
  extensionSources: (ResolvedSecret | undefined)[];
  /** `file:line:column` of a field (`['deployments', 0, 'provider']`), for errors found later. */
  locate(field: (string | number)[]): string;
}

/** Pre-shared virtual key secrets at least this long: shorter ones could be guessed. */
const MIN_KEY_SECRET_LENGTH = 32;

/**
 * Reads a YAML or JSON file (JSON is YAML), validates it with the admin API's schemas and
 * resolves its secret references. Every problem names the file, line, column and field; the
 * messages never quote a secret.
 */
export async function readConfigFile(path: string, env: Env): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError([`${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? error}`]);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ConfigFileError(
      document.errors.map((error) => {
        const at = error.linePos?.[0];
        return `${path}:${at?.line ?? 1}:${at?.col ?? 1}: ${error.message.split('\n')[0]}`;
      }),
    );
  }
  const parsed = configFileSchema.safeParse(document.toJS() ?? {});
  const where = locator(path, document, lines);
  if (!parsed.success) throw new ConfigFileError(parsed.error.issues.map((issue) => problem(where, issue)));
  const problems: string[] = [];
  const base = dirname(resolve(path));
  const secret = (field: (string | number)[], ref: string | undefined, file?: string) =>
    resolveSecret({ ref, file, env, base }, (message) =>
      problems.push(`${where(field)}: ${field.join('.')}: ${message}`),
    );
  const apiKeys = await Promise.all(
    parsed.data.deployments.map((entry, i) =>
      secret(
        ['deployments', i, entry.apiKeyFile === undefined ? 'apiKey' : 'apiKeyFile'],
        entry.apiKey,
        entry.apiKeyFile,
      ),
    ),
  );
  const keySecrets = await Promise.all(
    parsed.data.keys.map((entry, i) => secret(['keys', i, 'secret'], entry.secret)),
  );
  keySecrets.forEach((resolved, i) => {
    if (resolved !== undefined && resolved.value.length < MIN_KEY_SECRET_LENGTH) {
      problems.push(
        `${where(['keys', i, 'secret'])}: keys.${i}.secret: the secret must be at least ${MIN_KEY_SECRET_LENGTH} characters`,
      );
    }
  });
  const extensionSources = await Promise.all(
    parsed.data.extensions.map((entry, i) =>
      readModule(resolve(base, entry.sourceFile), entry.sourceFile, (message) =>
        problems.push(`${where(['extensions', i, 'sourceFile'])}: extensions.${i}.sourceFile: ${message}`),
      ),
    ),
  );
  if (problems.length > 0) throw new ConfigFileError(problems);
  return { path, file: parsed.data, apiKeys, keySecrets, extensionSources, locate: where };
}

async function resolveSecret(
  source: { ref: string | undefined; file: string | undefined; env: Env; base: string },
  fail: (message: string) => void,
): Promise<ResolvedSecret | undefined> {
  if (source.file !== undefined) {
    try {
      const value = (await readFile(resolve(source.base, source.file), 'utf8')).trim();
      if (value === '') fail(`the file ${source.file} is empty`);
      return { value, ref: source.file };
    } catch (error) {
      fail(`cannot read ${source.file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
      return undefined;
    }
  }
  if (source.ref === undefined) return undefined;
  const name = ENV_REFERENCE.exec(source.ref)?.[1] ?? '';
  const value = source.env[name];
  if (value === undefined || value === '') {
    fail(`the environment variable ${name} is not set`);
    return undefined;
  }
  return { value, ref: source.ref };
}

/** An extension's module as written (not trimmed: it is code, compared byte for byte with the stored one). */
async function readModule(
  path: string,
  ref: string,
  fail: (message: string) => void,
): Promise<ResolvedSecret | undefined> {
  try {
    return { value: await readFile(path, 'utf8'), ref };
  } catch (error) {
    fail(`cannot read ${ref}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    return undefined;
  }
}

/** `file:line:column` of the value at `path`, or of its nearest parent present in the file. */
function locator(path: string, document: Document, lines: LineCounter): (field: PropertyKey[]) => string {
  return (field) => {
    for (let depth = field.length; depth >= 0; depth--) {
      const node = document.getIn(field.slice(0, depth) as unknown[], true) as
        | { range?: [number, number, number] }
        | undefined;
      if (node?.range !== undefined) {
        const { line, col } = lines.linePos(node.range[0]);
        return `${path}:${line}:${col}`;
      }
    }
    return `${path}:1:1`;
  };
}

function problem(where: (field: PropertyKey[]) => string, issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.') || '(top level)';
  return `${where(issue.path)}: ${field}: ${issue.message}`;
}
