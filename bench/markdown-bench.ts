/**
 * Markdown conversion: `npm run bench -- markdown` (or `npx tsx bench/markdown-bench.ts [--quick]`).
 * First the corpus (`bench/markdown-corpus.ts`): the score per CMS family and the conversion time of
 * the corpus and of a 3.4 KiB article against bare turndown. Then bodies of 10 KiB, 100 KiB and 1 MiB of ordinary editorial HTML (paragraphs with links and
 * emphasis, headings, lists, a table, a code block), converted raw (turndown alone) and bounded (the
 * production path: size and nesting bounds, then turndown, then the Markdown bound), plus a full
 * `renderAgentMarkdown` on embedded PGlite.
 */
import TurndownService from 'turndown';
import { boundedHtmlToMarkdown, htmlToMarkdown } from '../src/markdown/convert.js';
import { DEFAULT_MARKDOWN_LIMITS } from '../src/markdown/limits.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';
import { createTemplateEnvironment } from '../src/markdown/template-environment.js';
import { renderAgentMarkdown } from '../src/markdown/compose.js';
import { DEFAULT_PAGE_URL } from '../src/options.js';
import { denseHtml } from '../test/support/dense-html.js';
import { runCorpusBench } from './markdown-corpus.js';

const BASE = 'https://site.example';
const write = (line: string) => process.stdout.write(`${line}\n`);

const bodyOf = denseHtml;

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p99: at(99) };
}

function measure(runs: number, fn: () => void): { p50: number; p99: number } {
  for (let i = 0; i < Math.min(3, runs); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

async function measureAsync(runs: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

const ms = (n: number) => n.toFixed(2).padStart(9);

await runCorpusBench();

let started = performance.now();
new TurndownService();
const constructOnly = performance.now() - started;
started = performance.now();
htmlToMarkdown('<p>x</p>', { baseUrl: BASE });
const firstCall = performance.now() - started;
write(`TurndownService construction: ${constructOnly.toFixed(2)} ms; first conversion incl. shared service set-up: ${firstCall.toFixed(2)} ms`);
write('');
write('| body     | path    | runs | p50 ms    | p99 ms    | ms/KiB (p50) |');
write('|----------|---------|------|-----------|-----------|--------------|');
for (const [label, bytes, runs] of [['10 KiB', 10 * 1024, 200], ['100 KiB', 100 * 1024, 40], ['1 MiB', 1024 * 1024, 10]] as const) {
  const html = bodyOf(bytes);
  const raw = measure(runs, () => htmlToMarkdown(html, { baseUrl: BASE }));
  const bounded = measure(runs, () => boundedHtmlToMarkdown(html, { baseUrl: BASE }, DEFAULT_MARKDOWN_LIMITS));
  write(`| ${label.padEnd(8)} | raw     | ${String(runs).padStart(4)} | ${ms(raw.p50)} | ${ms(raw.p99)} | ${(raw.p50 / (bytes / 1024)).toFixed(3).padStart(12)} |`);
  write(`| ${label.padEnd(8)} | bounded | ${String(runs).padStart(4)} | ${ms(bounded.p50)} | ${ms(bounded.p99)} | ${(bounded.p50 / (bytes / 1024)).toFixed(3).padStart(12)} |`);
}

const content = await openDatabase({ memory: true });
try {
  await migrateToLatest(content.db);
  await bootstrapVocabulary(content.db);
  await insertCategory(content.db, { name: 'article' });
  const deep = await insertResource(content.db, { category: 'article', title: { en: 'Referenced' }, body: { en: bodyOf(2 * 1024) } });
  const env = createTemplateEnvironment([]);
  write('');
  write('renderAgentMarkdown on PGlite (load, templates, conversion), 5 blocks incl. one page reference:');
  write('| body     | runs | p50 ms    | p99 ms    |');
  write('|----------|------|-----------|-----------|');
  for (const [label, bytes, runs] of [['10 KiB', 10 * 1024, 100], ['100 KiB', 100 * 1024, 30]] as const) {
    const id = await insertResource(content.db, {
      category: 'article',
      title: { en: 'Bench' },
      body: { en: bodyOf(bytes) },
      blocks: [
        { type: 'header', header: { en: 'Header' } },
        { type: 'text', body: { en: '<p>Text block</p>' } },
        { type: 'page', rsc_id: deep },
        { type: 'survey_poll' },
        { type: 'text', body: { en: '<p>Closing</p>' } },
      ],
    });
    const input = { db: content.db, env, options: { defaultLanguage: 'en', pageUrl: DEFAULT_PAGE_URL }, id, language: 'en', baseUrl: BASE };
    const r = await measureAsync(runs, () => renderAgentMarkdown(input));
    write(`| ${label.padEnd(8)} | ${String(runs).padStart(4)} | ${ms(r.p50)} | ${ms(r.p99)} |`);
  }
} finally {
  await content.close();
}
