/**
 * The real coding-agent CLIs for the end-to-end tests of test/agents/: Claude Code (`claude -p`,
 * npm `@anthropic-ai/claude-code`) and Codex (`codex exec`, npm `@openai/codex`), each a native
 * binary shipped in an npm optional package. They are installed from the npm registry on first
 * use, at pinned versions, into a cache outside node_modules (`npm ci` empties node_modules; the
 * pair is about 800 MB): `AGENT_CLI_DIR`, else `~/.cache/switchyard/agent-clis`. Each run gets
 * its own home directory, reaches nothing but the gateway (telemetry, error reporting and update
 * checks off) and is killed after AGENT_RUN_LIMIT_MS.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const AGENT_CLIS = Object.freeze({
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
});
type Cli = keyof typeof AGENT_CLIS;

/** A hung CLI must not hang the suite; a run against the fakes takes a few seconds. */
const AGENT_RUN_LIMIT_MS = 120_000;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliDir(cli: Cli): string {
  const { pkg, version } = AGENT_CLIS[cli];
  const base = process.env.AGENT_CLI_DIR ?? join(homedir(), '.cache', 'switchyard', 'agent-clis');
  return join(base, `${pkg.replace('/', '+')}@${version}`);
}

/** The CLI's launcher, installed from npm when missing. */
export async function installedCli(cli: Cli): Promise<string> {
  const { pkg, version, bin } = AGENT_CLIS[cli];
  const dir = cliDir(cli);
  const launcher = join(dir, 'node_modules', '.bin', bin);
  if (existsSync(launcher)) return launcher;
  await mkdir(dir, { recursive: true });
  const install = await run(
    'npm',
    ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-package-lock', `${pkg}@${version}`],
    { env: process.env, cwd: dir, limitMs: 600_000 },
  );
  if (install.code !== 0 || !existsSync(launcher)) {
    throw new Error(`npm could not install ${pkg}@${version} into ${dir}:\n${install.stderr.slice(-2000)}`);
  }
  return launcher;
}

/** Runs `command` to its end (or AGENT_RUN_LIMIT_MS), its output collected. */
export function run(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; limitMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? AGENT_RUN_LIMIT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment every CLI run gets: its own home, nothing of the developer's, no phoning home. */
async function isolatedEnv(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const home = await mkdtemp(join(tmpdir(), 'sy-agent-'));
  return { home, env: { PATH: process.env.PATH, HOME: home, TMPDIR: tmpdir(), LANG: 'C.UTF-8' } };
}

/** `claude -p <prompt>` against the gateway with `model`; the JSON result (`--output-format json`). */
export async function runClaudeCode(options: {
  gatewayUrl: string;
  key: string;
  model: string;
  prompt: string;
  allowedTools: string;
}): Promise<CliRun & { result: Record<string, unknown> | null }> {
  const launcher = await installedCli('claude');
  const { home, env } = await isolatedEnv();
  const outcome = await run(
    launcher,
    [
      '-p',
      options.prompt,
      '--model',
      options.model,
      '--output-format',
      'json',
      '--allowedTools',
      options.allowedTools,
    ],
    {
      cwd: home,
      env: {
        ...env,
        ANTHROPIC_BASE_URL: options.gatewayUrl,
        ANTHROPIC_API_KEY: options.key,
        // Claude Code's background calls (titles, summaries) go to the same model.
        ANTHROPIC_DEFAULT_HAIKU_MODEL: options.model,
        ANTHROPIC_SMALL_FAST_MODEL: options.model,
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    },
  );
  const start = outcome.stdout.indexOf('{"');
  let result: Record<string, unknown> | null = null;
  try {
    result = start === -1 ? null : (JSON.parse(outcome.stdout.slice(start)) as Record<string, unknown>);
  } catch {
    result = null;
  }
  return { ...outcome, result };
}

/**
 * `codex exec <prompt>` against the gateway's Responses endpoint with `model` (a provider
 * `gateway` in its config.toml, `wire_api = "responses"`); the last message (`-o`).
 * `reasoningEffort`: `model_reasoning_effort`, without which Codex asks a model it does not know
 * (any Claude) for no reasoning.
 */
export async function runCodex(options: {
  gatewayUrl: string;
  key: string;
  model: string;
  prompt: string;
  reasoningEffort?: 'low' | 'medium' | 'high';
}): Promise<CliRun & { lastMessage: string }> {
  const launcher = await installedCli('codex');
  const { home, env } = await isolatedEnv();
  const codexHome = join(home, '.codex');
  await mkdir(codexHome);
  await writeFile(
    join(codexHome, 'config.toml'),
    [
      `model = ${JSON.stringify(options.model)}`,
      'model_provider = "gateway"',
      'check_for_update_on_startup = false',
      ...(options.reasoningEffort
        ? [`model_reasoning_effort = ${JSON.stringify(options.reasoningEffort)}`]
        : []),
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[model_providers.gateway]',
      'name = "Switchyard"',
      `base_url = ${JSON.stringify(`${options.gatewayUrl}/v1`)}`,
      'env_key = "SWITCHYARD_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  const last = join(home, 'last-message.txt');
  const outcome = await run(
    launcher,
    ['exec', '--skip-git-repo-check', '--sandbox', 'danger-full-access', '-o', last, options.prompt],
    { cwd: home, env: { ...env, CODEX_HOME: codexHome, SWITCHYARD_KEY: options.key } },
  );
  const lastMessage = existsSync(last) ? await readFile(last, 'utf8') : '';
  return { ...outcome, lastMessage };
}
