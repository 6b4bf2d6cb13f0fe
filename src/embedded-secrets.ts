import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.ts';

/** Secrets generated for the embedded default, kept in `<dataDir>/secrets.json` (mode 0600). */
interface EmbeddedSecrets {
  masterKey: string;
  credentialsEncryptionKey: string;
  encryptionKeyring: Record<string, string>;
  activeEncryptionKeyId: string;
}

export interface EmbeddedSecretsResult {
  config: Config;
  /** Set only on the start that generated the master key, so it is printed exactly once. */
  generatedMasterKey: string | undefined;
  file: string;
}

/**
 * Prints the master key on the start that generated it, once, for the operator at the terminal
 * (DESIGN.md section 3). Plain text on stderr, never a JSON log line.
 */
export function announceGeneratedMasterKey(result: EmbeddedSecretsResult): void {
  if (result.generatedMasterKey === undefined) return;
  process.stderr.write(
    `\nswitchyard: embedded mode generated a master key (kept in ${result.file}):\n\n  ${result.generatedMasterKey}\n\n`,
  );
}

function generate(): EmbeddedSecrets {
  return {
    masterKey: `sk-sy-master-${randomBytes(24).toString('base64url')}`,
    credentialsEncryptionKey: randomBytes(32).toString('hex'),
    encryptionKeyring: { embedded: randomBytes(32).toString('hex') },
    activeEncryptionKeyId: 'embedded',
  };
}

async function readSecrets(file: string): Promise<EmbeddedSecrets | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EmbeddedSecrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Embedded dev convenience (DESIGN.md section 3): with no DATABASE_URL, secrets the environment
 * does not give are generated once and kept under the data directory. With DATABASE_URL set this
 * is never called: config validation already demanded them from the environment.
 */
export async function withEmbeddedSecrets(config: Config): Promise<EmbeddedSecretsResult> {
  const file = join(config.dataDir, 'secrets.json');
  let secrets = await readSecrets(file);
  let generatedMasterKey: string | undefined;
  if (secrets === null) {
    secrets = generate();
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    if (config.masterKey === undefined) generatedMasterKey = secrets.masterKey;
  }
  const fromEnvKeyring = config.encryptionKeyring !== undefined;
  return {
    file,
    generatedMasterKey,
    config: {
      ...config,
      masterKey: config.masterKey ?? secrets.masterKey,
      credentialsEncryptionKey: config.credentialsEncryptionKey ?? secrets.credentialsEncryptionKey,
      encryptionKeyring: config.encryptionKeyring ?? JSON.stringify(secrets.encryptionKeyring),
      activeEncryptionKeyId: fromEnvKeyring ? config.activeEncryptionKeyId : secrets.activeEncryptionKeyId,
    },
  };
}
