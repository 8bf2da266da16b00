/**
 * The Markdown corpus in the bench (`npm run bench -- markdown`, first part): the score on the corpus
 * per CMS family (expectations met / expectations, test/fixtures/markdown-corpus) of the product's
 * conversion and of bare turndown with its GFM plugin, then the conversion time of the corpus (ms per
 * fragment, CPU time) and of the cost bench's 3.4 KiB article, the product's production path (the bounded
 * conversion) against bare turndown, in interleaved rounds of one run; medians over rounds.
 */
import { createRequire } from 'node:module';
import TurndownService from 'turndown';
import { boundedHtmlToMarkdown } from '../src/markdown/convert.js';
import { DEFAULT_MARKDOWN_LIMITS } from '../src/markdown/limits.js';
import { CORPUS, CORPUS_BASE_URL, CORPUS_DOCUMENT_URL, checkFragment } from '../test/fixtures/markdown-corpus/index.js';

const write = (line: string) => process.stdout.write(`${line}\n`);
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 5 : 21));

/** The cost bench's typical article (`bench/cost-bench.ts`): 3,412 bytes of headings, paragraphs, lists and links. */
export function typicalArticle(): string {
  const paragraph = (i: number) =>
    `<p>Paragraph ${i} of the harbour report: the <a href="https://example.org/quay/${i}">north quay</a> handled <strong>${100 + i} ships</strong> this season, and the <em>tide tables</em> were published as open data for anyone to reuse.</p>`;
  const parts = ['<h2>Summary</h2>', paragraph(1), paragraph(2), '<h2>Findings</h2>'];
  parts.push(`<ul>${Array.from({ length: 8 }, (_, i) => `<li>Finding ${i + 1}: the crane at berth ${i + 3} was idle ${i * 3}% of the time.</li>`).join('')}</ul>`);
  for (let i = 3; i <= 12; i++) parts.push(paragraph(i));
  parts.push('<h2>Sources</h2>', '<ol><li><a href="https://example.org/tides">Tide tables</a></li><li><a href="https://example.org/ships">Ship register</a></li></ol>');
  return parts.join('\n');
}

/** Bare turndown as a site would set it up: ATX headings, fenced code, the GFM plugin. */
function bareTurndown(): (html: string) => string {
  const { gfm } = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as { gfm: TurndownService.Plugin };
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).use(gfm);
  return (html) => service.turndown(html);
}

const productConversion = (html: string) => boundedHtmlToMarkdown(html, { baseUrl: CORPUS_BASE_URL, documentUrl: CORPUS_DOCUMENT_URL }, DEFAULT_MARKDOWN_LIMITS).markdown;

type Convert = (html: string) => string;

/**
 * The conversion of another tree, for a side-by-side run: `MARKDOWN_BEFORE=<its src/markdown/convert.ts>`
 * (e.g. `git archive <commit> src | tar -x -C /tmp/before`, with `node_modules` linked beside it). Set
 * `MARKDOWN_AFTER` to the current tree exported the same way: a module loaded from another path was
 * took 1.4 to 1.5 times the CPU of the statically imported product on identical code, so both sides
 * must load alike.
 */
async function treeCandidate(variable: 'MARKDOWN_BEFORE' | 'MARKDOWN_AFTER'): Promise<Convert | undefined> {
  const path = process.env[variable];
  if (!path) return undefined;
  const tree = (await import(path)) as { boundedHtmlToMarkdown: typeof boundedHtmlToMarkdown };
  return (html) => tree.boundedHtmlToMarkdown(html, { baseUrl: CORPUS_BASE_URL, documentUrl: CORPUS_DOCUMENT_URL }, DEFAULT_MARKDOWN_LIMITS).markdown;
}

function score(convert: (html: string) => string): { families: string[]; passed: number; total: number } {
  let passed = 0;
  let total = 0;
  const families = Object.entries(CORPUS).map(([family, fragments]) => {
    let p = 0;
    let t = 0;
    for (const f of fragments) {
      let markdown = '';
      try {
        markdown = convert(f.html);
      } catch {
        // A converter that throws scores nothing on the fragment.
      }
      const r = checkFragment(f, markdown);
      p += r.passed;
      t += r.total;
    }
    passed += p;
    total += t;
    return `${family} ${p}/${t} (${Math.round((100 * p) / t)} %)`;
  });
  return { families, passed, total };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * CPU milliseconds per conversion (the process's user and system time): on a machine shared with other
 * work, wall time varied by ±20 % between identical runs, CPU time by a few percent.
 */
function msPer(convert: (html: string) => string, inputs: readonly string[], repeat: number): number {
  const started = process.cpuUsage();
  for (let r = 0; r < repeat; r++) for (const html of inputs) convert(html);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / (repeat * inputs.length);
}

export async function runCorpusBench(): Promise<void> {
  const bare = bareTurndown();
  const before = await treeCandidate('MARKDOWN_BEFORE');
  const product = (await treeCandidate('MARKDOWN_AFTER')) ?? productConversion;
  const fragments = Object.values(CORPUS).flat().map((f) => f.html);
  const article = typicalArticle();
  write(`Markdown corpus: ${fragments.length} fragments (test/fixtures/markdown-corpus); score = expectations met / expectations, one well-formedness check per fragment included`);
  const scored: [string, Convert][] = [['product', product], ...(before ? [['product before (MARKDOWN_BEFORE)', before] as [string, Convert]] : []), ['bare turndown + GFM plugin', bare]];
  for (const [name, convert] of scored) {
    const s = score(convert);
    write(`- ${name}: ${s.families.join(', ')}; all ${s.passed}/${s.total} (${((100 * s.passed) / s.total).toFixed(1)} %)`);
  }
  const candidates: [string, Convert][] = [['product (bounded)', product], ['bare turndown', bare], ...(before ? [['before', before] as [string, Convert]] : [])];
  for (const [, convert] of candidates) msPer(convert, fragments, 3);
  const times = new Map<string, { corpus: number[]; article: number[] }>(candidates.map(([n]) => [n, { corpus: [], article: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    // Taking turns going first, so that neither always runs on a warmer (or busier) machine.
    const order = round % 2 ? [...candidates].reverse() : candidates;
    for (const [name, convert] of order) {
      times.get(name)!.corpus.push(msPer(convert, fragments, 3));
      times.get(name)!.article.push(msPer(convert, [article], 60));
    }
  }
  const [p, b, o] = candidates.map(([name]) => times.get(name)!);
  write('');
  write(`Conversion CPU time, ${ROUNDS} interleaved rounds, medians (article: ${Buffer.byteLength(article)} bytes):`);
  write('| input | product CPU ms | bare turndown CPU ms | product / bare |');
  write('|---|---|---|---|');
  write(`| corpus, per fragment | ${median(p!.corpus).toFixed(3)} | ${median(b!.corpus).toFixed(3)} | ${(median(p!.corpus) / median(b!.corpus)).toFixed(2)} |`);
  write(`| 3.4 KiB article | ${median(p!.article).toFixed(3)} | ${median(b!.article).toFixed(3)} | ${(median(p!.article) / median(b!.article)).toFixed(2)} |`);
  if (o) {
    write('');
    write('| input | product CPU ms | before CPU ms | product / before |');
    write('|---|---|---|---|');
    write(`| corpus, per fragment | ${median(p!.corpus).toFixed(3)} | ${median(o.corpus).toFixed(3)} | ${(median(p!.corpus) / median(o.corpus)).toFixed(2)} |`);
    write(`| 3.4 KiB article | ${median(p!.article).toFixed(3)} | ${median(o.article).toFixed(3)} | ${(median(p!.article) / median(o.article)).toFixed(2)} |`);
  }
  write('');
}
