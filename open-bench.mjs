import { PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';
const tar = new Uint8Array(readFileSync(process.argv[2]));
class TarBytes extends Blob { constructor(t){super([]); this.t=t;} arrayBuffer(){return Promise.resolve(this.t.slice().buffer);} }
const mode = process.argv[3];
let opts = {};
if (mode === 'reuse') {
  const dir = new URL('node_modules/@electric-sql/pglite/dist/', 'file://' + process.cwd() + '/');
  const wasm = readFileSync(new URL('pglite.wasm', dir));
  const mod = await WebAssembly.compile(wasm);
  const data = readFileSync(new URL('pglite.data', dir));
  opts = { pgliteWasmModule: mod, fsBundle: new Blob([data]) };
}
const cpu0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < 8; i++) {
  const c = process.cpuUsage(); const t = performance.now();
  const p = new PGlite({ loadDataDir: new TarBytes(tar), ...opts });
  await p.waitReady;
  await p.query('select count(*) from rsc');
  await p.close();
  const d = process.cpuUsage(c);
  console.log(i, ((performance.now()-t)/1000).toFixed(2), 's wall', ((d.user+d.system)/1e6).toFixed(2), 's cpu');
}
const d = process.cpuUsage(cpu0); console.log('total cpu', ((d.user+d.system)/1e6).toFixed(2));
