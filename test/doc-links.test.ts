import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The Markdown pages a reader follows links between: the README, bench/README.md and docs/. */
const PAGES = ['README.md', 'bench/README.md', ...readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];

const withoutCode = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** A heading's anchor as GitHub makes it: the text without markup, lower case, punctuation dropped, spaces as hyphens. */
export function githubAnchor(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page: one per heading (a repeated one numbered -1, -2, …) and every `id`/`name` of an HTML anchor. */
function anchorsOf(page: string): Set<string> {
  const markdown = withoutCode(readFileSync(page, 'utf8'));
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const anchor = githubAnchor(heading!);
    const count = seen.get(anchor) ?? 0;
    anchors.add(count ? `${anchor}-${count}` : anchor);
    seen.set(anchor, count + 1);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** The relative links of a page (outside code): the file they name (the page itself for `#…`) and their fragment. */
function linksOf(page: string): Array<{ target: string; fragment: string | undefined }> {
  const prose = withoutCode(readFileSync(page, 'utf8')).replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)]
    .filter(([, file]) => !/^[a-z][a-z0-9+.-]*:/i.test(file!))
    .map(([, file, fragment]) => ({ target: file ? path.join(path.dirname(page), file) : page, fragment }));
}

describe('links between the README and docs', () => {
  it('GitHub anchors: markup dropped, punctuation dropped, spaces as hyphens', () => {
    assert.equal(githubAnchor('Cost per request (`bench/cost-bench.ts`)'), 'cost-per-request-benchcost-benchts');
    assert.equal(githubAnchor('robots.txt, AI usage preferences and CORS'), 'robotstxt-ai-usage-preferences-and-cors');
    assert.equal(githubAnchor('[MCP](x.md): an opt-in, read-only endpoint'), 'mcp-an-opt-in-read-only-endpoint');
  });

  it('every relative link names a file of the repository, and its #fragment a heading of that page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const { target, fragment } of linksOf(page)) {
        if (!existsSync(target)) broken.push(`${page}: ${target} does not exist`);
        else if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(decodeURIComponent(fragment))) {
          broken.push(`${page}: ${target} has no heading #${fragment}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('a broken fragment is found (the check fails when it should)', () => {
    assert.ok(anchorsOf('docs/reference/options.md').has('reference-options'));
    assert.ok(!anchorsOf('docs/reference/options.md').has('no-such-heading'));
  });
});
