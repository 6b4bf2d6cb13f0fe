/**
 * Imported first by main.ts, so an old Node.js running the build (`npm start` without the bundled
 * Node.js 24) stops with what to do before any other module runs. bin/switchyard.js says the same
 * in plain JavaScript, for the sources, which an old Node.js cannot even load.
 */
const REQUIRED_MAJOR = 24;

if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  process.stderr.write(
    `switchyard: needs Node.js ${REQUIRED_MAJOR} or later, and this is ${process.version}.\n` +
      '  In the project, `npm install` brings Node.js 24 (the "node" package), and `npm start`, `npm run ...`\n' +
      '  and `npx switchyard` use it; elsewhere, install Node.js 24 (https://nodejs.org).\n',
  );
  process.exit(1);
}
