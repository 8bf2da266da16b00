import { PGlite } from '@electric-sql/pglite';
import { readFileSync, writeFileSync } from 'node:fs';
const tar = new Uint8Array(readFileSync(process.argv[2]));
class TarBytes extends Blob { constructor(t){super([]); this.t=t;} arrayBuffer(){return Promise.resolve(this.t.slice().buffer);} }
const p = new PGlite({ loadDataDir: new TarBytes(tar) });
await p.waitReady;
await p.exec('CHECKPOINT');
const b = new Uint8Array(await (await p.dumpDataDir('none')).arrayBuffer());
writeFileSync(process.argv[3], b);
console.log(tar.length, b.length);
