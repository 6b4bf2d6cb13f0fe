#!/usr/bin/env node
// The `switchyard` command. Plain JavaScript that any Node.js parses, so an old one gets a clear
// message instead of a syntax error from the TypeScript sources.
import { existsSync } from 'node:fs';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  process.stderr.write(
    `switchyard: needs Node.js ${REQUIRED_MAJOR} or later, and this is ${process.version}.\n` +
      '  In the project, `npm install` brings Node.js 24 (the "node" package), and `npm start`, `npm run ...`\n' +
      '  and `npx switchyard` use it; elsewhere, install Node.js 24 (https://nodejs.org).\n',
  );
  process.exit(1);
}

// A checkout runs its sources (Node.js 24 strips the types), so a command never runs a stale
// build; an image holds only dist/.
const source = new URL('../src/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/main.js', import.meta.url).href);
