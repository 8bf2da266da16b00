import domino from '@mixmark-io/domino';
import TurndownService from 'turndown';
for (const n of [1000, 10000, 100000]) {
  const html = '<div>'.repeat(n) + 'x' + '</div>'.repeat(n);
  let t = performance.now();
  const doc = domino.createDocument(html);
  console.log(n, 'parse', (performance.now() - t).toFixed(1));
  t = performance.now();
  try { new TurndownService().turndown(html); console.log(n, 'turndown ok', (performance.now()-t).toFixed(1)); } catch (e) { console.log(n, 'turndown err', e.message, (performance.now()-t).toFixed(1)); }
}
for (const n of [10000, 100000]) {
  const html = '<div>'.repeat(n) + 'x';
  let t = performance.now();
  domino.createDocument(html);
  console.log(n, 'unclosed parse', (performance.now() - t).toFixed(1));
  const h2 = '<b>'.repeat(n) + 'x';
  t = performance.now();
  domino.createDocument(h2);
  console.log(n, 'unclosed b parse', (performance.now() - t).toFixed(1));
  const h3 = '<table><tr><td>'.repeat(n/10) + 'x';
  t = performance.now();
  domino.createDocument(h3);
  console.log(n/10, 'nested table parse', (performance.now() - t).toFixed(1));
}
