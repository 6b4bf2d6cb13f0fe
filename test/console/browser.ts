import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium package (`.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What Chromium logs for an answer with an error status ("Failed to load resource: ... status of 401"). */
const FAILED_LOAD = /Failed to load resource: the server responded with a status of (\d+)/;

export interface ConsoleBrowser {
  page: Page;
  /** Every console error and uncaught page error not allowed by `expectingStatus`. */
  errors: string[];
  /**
   * Runs a step whose API call is meant to fail with `status` (a wrong key, a validation error):
   * Chromium logs such an answer as a console error, which is allowed during the step only.
   */
  expectingStatus<T>(status: number, step: () => Promise<T>): Promise<T>;
  /** Saves a full-page screenshot as `<name>.png` in the output folder. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** One headless Chromium with a fresh profile, recording every console error of its page. */
export async function openBrowser(screenshotDir: string): Promise<ConsoleBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'sy-chromium-'));
  await mkdir(screenshotDir, { recursive: true });
  // launchPersistentContext takes the profile folder as --user-data-dir, which launch() refuses in args.
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const allowed: number[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = FAILED_LOAD.exec(message.text())?.[1];
    if (status !== undefined && allowed.includes(Number(status))) return;
    errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.stack ?? error.message}`));
  return {
    page,
    errors,
    async expectingStatus(status, step) {
      allowed.push(status);
      try {
        return await step();
      } finally {
        allowed.splice(allowed.indexOf(status), 1);
      }
    },
    async screenshot(name) {
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
