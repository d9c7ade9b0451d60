import * as fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const pg = (globalThis as { __signetPg?: { stop: () => Promise<void>; dir: string } }).__signetPg;
  if (!pg) return;
  await pg.stop();
  fs.rmSync(pg.dir, { recursive: true, force: true });
}
