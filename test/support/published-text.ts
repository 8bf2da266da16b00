import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { micromark } from 'micromark';
import { createAgentDiscovery, type AgentDiscovery, type AgentDiscoveryOptions } from '../../src/index.js';
import type { TestDatabase } from './backends.js';
import { parseLlmsFile } from './llms-txt-reference.js';

/** The part of domino's DOM the tests read. */
interface DomElement {
  tagName: string;
  textContent: string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
}
interface DomDocument {
  body: DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const domino = createRequire(import.meta.url)('@mixmark-io/domino') as { createDocument(html: string): DomDocument };

/** An HTML page as a browser's parser builds it (turndown's DOM, domino). */
export const parseHtml = (html: string): DomDocument => domino.createDocument(html);

/** Admin text that would be markup if it were not escaped. */
export const HOSTILE_DESCRIPTION = '<script>alert("d")</script><b>Bold</b> and [link](javascript:alert(2))';
export const HOSTILE_NOTES = '<script>alert("n")</script><i>Lean</i> see [here](javascript:alert(3)) and ![x](javascript:alert(4))';

/**
 * Markdown as a CommonMark renderer makes it, raw HTML and every link protocol let through (so nothing
 * is hidden by the renderer's own safety): the elements it made and the text a reader sees.
 */
export function renderMarkdown(markdown: string): { elements: string[]; text: string } {
  const html = micromark(markdown, { allowDangerousHtml: true, allowDangerousProtocol: true });
  const body = parseHtml(`<body>${html}</body>`).body;
  const elements = Array.from(body.querySelectorAll('*'), (e) => e.tagName.toLowerCase());
  return { elements, text: (body.textContent ?? '').trim() };
}

/** The description and notes as each document publishes them, parsed as its type says. */
export interface PublishedTexts {
  llmsSummary: string | null;
  llmsInfo: string | null;
  homeSummary: string | null;
  homeInfo: string | null;
  openapi: string;
  ard: string;
  apiRoot: string;
  apiHelp: DomDocument;
}

const json = async (url: string): Promise<any> => {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return JSON.parse(await res.text());
};

/** Fetches llms.txt, the Markdown home page, OpenAPI, the ARD manifest, the API root and API help. */
export async function publishedTexts(base: string): Promise<PublishedTexts> {
  const llms = parseLlmsFile(await (await fetch(`${base}/llms.txt`)).text());
  const homeRes = await fetch(`${base}/`, { headers: { accept: 'text/markdown' } });
  if (!homeRes.headers.get('content-type')?.startsWith('text/markdown')) throw new Error('the home page did not answer Markdown');
  const home = parseLlmsFile(await homeRes.text());
  return {
    llmsSummary: llms.summary,
    llmsInfo: llms.info,
    homeSummary: home.summary,
    homeInfo: home.info,
    openapi: (await json(`${base}/openapi.json`)).info.description,
    ard: (await json(`${base}/.well-known/ard.json`)).entries[0].description,
    apiRoot: (await json(`${base}/api/agent`)).result.description,
    apiHelp: parseHtml(await (await fetch(`${base}/api-help`)).text()),
  };
}

/** A host of the plugin with its admin pages at `/admin/agent` (every visitor an administrator). */
export interface AdminHost {
  base: string;
  agent: AgentDiscovery;
  close(): Promise<void>;
}

/** `options`: further plugin options (`mcp`, `siteLicense`, …). */
export async function startAdminHost(content: TestDatabase, siteTitle: string, options: Partial<AgentDiscoveryOptions> = {}): Promise<AdminHost> {
  const agent = await createAgentDiscovery({
    siteTitle,
    database: { kysely: content.db },
    isAdmin: () => true,
    adminSecret: 'a'.repeat(32),
    ...options,
  });
  const app = express();
  app.use(agent.router);
  app.use('/admin/agent', agent.adminRouter);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    agent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
