import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../helpers/eventually.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The instructions of the image's last stage, continuation lines joined. */
function finalStage(): Map<string, string[]> {
  const lines = DOCKERFILE.replace(/\\\n\s*/g, '').split('\n');
  const stage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  const instructions = new Map<string, string[]>();
  for (const line of stage) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (match !== null) instructions.set(match[1], [...(instructions.get(match[1]) ?? []), match[2]]);
  }
  return instructions;
}

/** An exec-form instruction's argv (a JSON array), or a failure: a shell form would stand between SIGTERM and node. */
function execForm(value: string | undefined): string[] {
  if (!value?.trim().startsWith('[')) return assert.fail(`exec form expected, got ${value}`);
  return JSON.parse(value) as string[];
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

describe('container image', () => {
  it('is multi-stage and runs as a non-root user', () => {
    assert.ok((DOCKERFILE.match(/^FROM /gm) ?? []).length >= 2, 'a build stage and a runtime stage');
    const user = finalStage().get('USER')?.at(-1);
    assert.ok(user !== undefined && user !== 'root' && user !== '0', `USER ${user}`);
    assert.ok(
      !/COPY\s.*\bsrc\b/.test(finalStage().get('COPY')?.join('\n') ?? ''),
      'the image holds dist/, not the sources',
    );
  });

  it('its entrypoint serves, passes its own HEALTHCHECK, and drains and exits 0 on SIGTERM', async () => {
    const stage = finalStage();
    const [command, ...args] = [
      ...execForm(stage.get('ENTRYPOINT')?.at(-1)),
      ...execForm(stage.get('CMD')?.at(-1)),
    ];
    const health = /CMD\s+(\[.*\])$/.exec(stage.get('HEALTHCHECK')?.at(-1) ?? '')?.[1];
    const [healthCommand, ...healthArgs] = execForm(health);
    assert.match(healthArgs.join(' '), /\/health\/live/);
    const dataDir = await mkdtemp(join(tmpdir(), 'sy-image-'));
    const env = {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
    };
    // `node` as the image runs it, from the project root (the image's WORKDIR holds the same layout).
    const child = spawn(command === 'node' ? process.execPath : command, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    try {
      await waitUntil(
        async () => output.includes('switchyard listening') || child.exitCode !== null,
        'listening',
        60_000,
      );
      const probe = spawn(healthCommand === 'node' ? process.execPath : healthCommand, healthArgs, {
        env,
        stdio: 'ignore',
      });
      const [healthStatus] = await once(probe, 'exit');
      assert.equal(healthStatus, 0, `HEALTHCHECK failed; gateway output:\n${output}`);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0, output);
      assert.match(output, /shutdown complete/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('builds with docker where a Docker daemon is available', (t) => {
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      return t.skip(
        'no Docker daemon on this machine (docker info fails): the image build is not checked here',
      );
    }
    execFileSync('docker', ['build', '--quiet', '-t', 'switchyard-test', ROOT], {
      stdio: 'pipe',
      timeout: 600_000,
    });
  });
});
