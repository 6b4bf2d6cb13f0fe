import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// `npm run build:console` (part of `npm run build`): console/ -> dist/console/, which the gateway
// serves at /console/ (src/server/console-route.ts). docs/decisions/console-toolchain.md says why.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console/', import.meta.url)),
    emptyOutDir: true,
    // No data: URIs and no inline anything: the page's CSP allows this origin's files only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
});
