import { PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';
const tar = new Uint8Array(readFileSync(process.argv[2]));
class TarBytes extends Blob { constructor(t){super([]); this.t=t;} arrayBuffer(){return Promise.resolve(this.t.slice().buffer);} }
for (let i = 0; i < 4; i++) {
  const p = new PGlite({ loadDataDir: new TarBytes(tar) });
  await p.waitReady;
  await p.close();
}
