import { PGlite } from '@electric-sql/pglite';
import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const t = () => performance.now();
const mode = process.argv[2];
let s = t();
if (mode === 'disk') {
  const dir = await mkdtemp(join(tmpdir(), 'pgl-'));
  const db = await PGlite.create(dir);
  console.log('disk create', (t() - s).toFixed(0)); s = t();
  await db.close();
  const db2 = await PGlite.create(dir);
  console.log('disk reopen', (t() - s).toFixed(0));
  await db2.close();
} else if (mode === 'mem') {
  const db = await PGlite.create();
  console.log('mem create', (t() - s).toFixed(0)); s = t();
  const blob = await db.dumpDataDir('gzip');
  await writeFile('/tmp/ops-pg.tgz', Buffer.from(await blob.arrayBuffer()));
  console.log('dump', (t() - s).toFixed(0), blob.size);
  await db.close();
} else if (mode === 'load') {
  const dir = await mkdtemp(join(tmpdir(), 'pgl-'));
  const data = await readFile('/tmp/ops-pg.tgz');
  const db = await PGlite.create(dir, { loadDataDir: new Blob([data]) });
  console.log('load to disk', (t() - s).toFixed(0)); s = t();
  await db.query('select 1');
  await db.close();
  const db2 = await PGlite.create(dir);
  console.log('reopen', (t() - s).toFixed(0));
  await db2.close();
}
