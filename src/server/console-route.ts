import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.ts';
import type { OpenApiRegistry } from './openapi.ts';

/**
 * Where `npm run build` writes the console (console/vite.config.ts). The same from `src/server/`
 * and `dist/server/`: both are two levels under the repository.
 */
export const CONSOLE_BUILD_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/**
 * The console's pages run no inline script or style and load nothing from elsewhere: every asset
 * and every API call is this origin's.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Vite names every file under `assets/` by its content hash: it never changes under its name. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
/** The page itself names the current assets, so a browser revalidates it on every load. */
const PAGE_CACHE = 'no-cache';
const NOT_BUILT = 'The console is not built: run `npm run build` (npm start does it).';

interface ConsoleFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

/**
 * Serves the built console at `/console/` (index.html) and `/console/assets/:file`, read into
 * memory once at start-up. Registered on the root, beside `/health` and `/metrics`: `/v1` and
 * `/admin` run no hook of it, and fastify's router sends a `/v1` call straight past it. The
 * pages route by the URL's fragment, so no other path is needed; the console talks to the admin
 * API with the master key it keeps in the tab's sessionStorage.
 */
export async function registerConsoleRoute(
  app: FastifyInstance,
  docs: OpenApiRegistry,
  dir: string = CONSOLE_BUILD_DIR,
): Promise<void> {
  const files = await loadConsoleFiles(dir);
  app.get('/console', (_request, reply) => {
    reply.redirect('/console/', 301);
  });
  app.get('/console/', (request, reply) => {
    const page = files.get('index.html');
    // Nothing to serve is a 404 in the gateway's error shape, saying how to make it.
    if (page === undefined) throw new GatewayError('not_found', { message: NOT_BUILT });
    sendFile(reply, page, PAGE_CACHE, request.headers['if-none-match']);
  });
  app.get<{ Params: { file: string } }>('/console/assets/:file', (request, reply) => {
    const asset = files.get(`assets/${request.params.file}`);
    if (asset === undefined) throw new GatewayError('not_found');
    sendFile(reply, asset, HASHED_ASSET_CACHE, request.headers['if-none-match']);
  });
  documentConsoleRoutes(docs);
}

/** Every file of the build folder and its `assets/`; an empty map when the console is not built. */
async function loadConsoleFiles(dir: string): Promise<Map<string, ConsoleFile>> {
  const files = new Map<string, ConsoleFile>();
  for (const name of await listFiles(dir)) {
    const body = await readFile(join(dir, name));
    files.set(name, {
      body,
      contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    });
  }
  return files;
}

async function listFiles(dir: string): Promise<string[]> {
  const top = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = top.filter((entry) => entry.isFile()).map((entry) => entry.name);
  const assets = await readdir(join(dir, 'assets'), { withFileTypes: true }).catch(() => []);
  for (const entry of assets) if (entry.isFile()) names.push(`assets/${entry.name}`);
  return names;
}

function sendFile(reply: FastifyReply, file: ConsoleFile, cacheControl: string, ifNoneMatch?: string): void {
  reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', cacheControl)
    .header('etag', file.etag);
  if (ifNoneMatch === file.etag) {
    reply.code(304).send();
    return;
  }
  reply.type(file.contentType).send(file.body);
}

function documentConsoleRoutes(docs: OpenApiRegistry): void {
  const html = { 'text/html': {} };
  docs.add({
    method: 'get',
    path: '/console',
    operation: {
      summary: 'Redirects to /console/',
      tags: ['console'],
      responses: { 301: { description: 'To `/console/`.' } },
    },
  });
  docs.add({
    method: 'get',
    path: '/console/',
    operation: {
      summary: 'The admin console (docs/console.md); signs in with the master key in the page',
      tags: ['console'],
      responses: {
        200: { description: 'The console page, with a strict Content-Security-Policy.', content: html },
        404: { description: '`not_found`: the console is not built (`npm run build`).' },
      },
    },
  });
  docs.add({
    method: 'get',
    path: '/console/assets/{file}',
    operation: {
      summary: "The console's scripts and styles, named by content hash and cached for a year",
      tags: ['console'],
      requestParams: { path: z.object({ file: z.string() }) },
      responses: { 200: { description: 'The asset.' }, 404: { description: 'No such asset.' } },
    },
  });
}
