import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { Kysely } from 'kysely';
import {
  createAgentDiscovery,
  DEFAULT_MEDIA_URL,
  DEFAULT_PAGE_URL,
  type AgentDiscovery,
  type AgentDiscoveryOptions,
  type CallerAccess,
  type Database,
  type DatabaseOption,
  type ResolvedOptions,
} from '../src/index.js';
import ts from 'typescript';
import { resolveOptions } from '../src/options.js';
import { optionRows } from '../src/options-reference.js';

/**
 * Type tests of the public API: `npm test` runs `tsc --noEmit` over this file, so every line below
 * that should not compile carries `@ts-expect-error` (an error that goes away fails the type check).
 * The function is never called.
 */
export function publicApiTypes(req: Request, res: Response): void {
  const minimal: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true } };
  const full: AgentDiscoveryOptions = {
    siteTitle: 'Example',
    description: 'Articles.',
    baseUrl: 'https://example.org',
    languages: ['en', 'nl'],
    defaultLanguage: 'nl',
    noindex: false,
    templateDirs: [],
    pageUrl: (r) => `/${r.language}/${r.name ?? r.id}${r.category ? `?c=${r.category}` : ''}`,
    mediaUrl: (m) => `/media/${m.id}/${m.filename}?type=${m.mime}`,
    sitemapUrl: '/sitemap.xml',
    llmsNotes: 'Notes.',
    llmsNewest: 5,
    linkAllHtml: true,
    markdownHome: false,
    database: { url: 'postgres://localhost/db', poolSize: 5 },
    migrate: true,
    continuationSecret: 'x'.repeat(32),
    budgetMs: 2000,
    maxBodyBytes: 4096,
    callerAccess: async (r: Request): Promise<CallerAccess> => (r.get('x-admin') ? 'all' : 'anonymous'),
    onError: (error: unknown, r: Request) => void [error, r.method],
    ard: { namespace: 'docs', name: 'content-api', representativeQueries: ['a', 'b'], identity: { trustManifestUrl: 'https://example.org/trust' } },
    apiLicense: { name: 'CC-BY-4.0', identifier: 'CC-BY-4.0' },
    mcp: { path: '/agent-mcp', allowedOrigins: ['https://app.example.org'] },
    llmsFull: { maxBytes: 65536 },
    markdownWorkers: 0,
    isAdmin: async (r: Request) => r.get('x-admin') === 'yes',
    adminSecret: 'y'.repeat(32),
    adminLinks: [{ label: 'Edit resources', href: '/admin/resources' }],
    robotsTxt: true,
    cors: true,
    textSearch: { configuration: 'english' },
  };
  const host = {} as Kysely<Database>;
  const databases: DatabaseOption[] = [
    { url: 'postgres://x' },
    { url: 'postgres://x', poolSize: 5, readUrl: 'postgres://replica/x', preparedStatements: true },
    { dataDir: '/tmp/x' },
    { memory: true },
    { kysely: host },
  ];

  // @ts-expect-error siteTitle is required
  const noTitle: AgentDiscoveryOptions = { database: { memory: true } };
  // @ts-expect-error database is required
  const noDatabase: AgentDiscoveryOptions = { siteTitle: 'Example' };
  // @ts-expect-error an unknown option is refused at compile time too
  const unknownOption: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, budget: 5000 };
  // @ts-expect-error budgetMs is a number of milliseconds
  const budgetAsText: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, budgetMs: '5s' };
  // @ts-expect-error memory is only ever `true`
  const memoryFalse: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: false } };
  // @ts-expect-error callerAccess answers 'anonymous' or 'all'
  const badAccess: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, callerAccess: () => 'admin' };
  // @ts-expect-error mcp takes true, false or { path }
  const mcpPath: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, mcp: '/mcp' };
  // @ts-expect-error pageUrl answers a URL string
  const pageUrlNumber: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, pageUrl: (r) => r.id };
  // @ts-expect-error isAdmin answers a boolean
  const adminAsText: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, isAdmin: () => 'yes' };
  // @ts-expect-error onError receives the error and the request, nothing more
  const onErrorArity: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, onError: (e: unknown, r: Request, extra: string) => void [e, r, extra] };
  // @ts-expect-error an unknown ard field is refused too
  const ardTypo: AgentDiscoveryOptions = { siteTitle: 'Example', database: { memory: true }, ard: { namespaces: 'docs' } };
  // @ts-expect-error kysely is a Kysely instance
  const kyselyAsUrl: DatabaseOption = { kysely: 'postgres://x' };
  void [minimal, full, host, databases, noTitle, noDatabase, unknownOption, budgetAsText, memoryFalse, badAccess, mcpPath, pageUrlNumber, adminAsText, onErrorArity, ardTypo, kyselyAsUrl];

  const pending: Promise<AgentDiscovery> = createAgentDiscovery(minimal);
  void pending.then(async (agent) => {
    const router: Router = agent.router;
    const links: RequestHandler = agent.linkHeaders;
    const resolved: ResolvedOptions = agent.options;
    const budget: number = resolved.budgetMs;
    const defaultLanguage: string = resolved.defaultLanguage;
    const mcp: false | { path: string } = resolved.mcp;
    const head: string = await agent.headLinks(req, 7, { language: 'nl' });
    const sent: boolean = await agent.sendMarkdownIfPreferred(req, res, 'welcome');
    const origin: string | undefined = agent.baseUrl(req);
    await agent.setResourceHeaders(req, res, 7);
    const middleware: RequestHandler = agent.resourceLinks({ id: 'id', language: 'lang' });
    // @ts-expect-error resolved options are read-only
    resolved.budgetMs = 1;
    // @ts-expect-error a resource is referenced by id or name, not by an object
    await agent.headLinks(req, { id: 7 });
    void [router, links, budget, defaultLanguage, mcp, head, sent, origin, middleware];
  });
}

describe('public options: the defaults the options reference documents', () => {
  it('are what resolveOptions fills in', () => {
    const o = resolveOptions({ siteTitle: 'Example', database: { memory: true } } satisfies AgentDiscoveryOptions);
    assert.deepEqual(
      {
        languages: o.languages,
        defaultLanguage: o.defaultLanguage,
        noindex: o.noindex,
        templateDirs: o.templateDirs,
        llmsNewest: o.llmsNewest,
        linkAllHtml: o.linkAllHtml,
        markdownHome: o.markdownHome,
        migrate: o.migrate,
        budgetMs: o.budgetMs,
        maxBodyBytes: o.maxBodyBytes,
        mcp: o.mcp,
        ard: { namespace: o.ard.namespace, name: o.ard.name, identity: o.ard.identity },
        description: o.description,
        baseUrl: o.baseUrl,
        sitemapUrl: o.sitemapUrl,
        continuationSecret: o.continuationSecret,
        apiLicense: o.apiLicense,
        llmsFull: o.llmsFull,
        adminLinks: o.adminLinks,
        robotsTxt: o.robotsTxt,
        cors: o.cors,
        textSearch: o.textSearch,
        markdownWorkers: o.markdownWorkers,
      },
      {
        languages: ['en'],
        defaultLanguage: 'en',
        noindex: false,
        templateDirs: [],
        llmsNewest: 10,
        linkAllHtml: false,
        markdownHome: true,
        migrate: false,
        budgetMs: 5000,
        maxBodyBytes: 1048576,
        mcp: false,
        ard: { namespace: 'content', name: 'api', identity: undefined },
        description: undefined,
        baseUrl: undefined,
        sitemapUrl: undefined,
        continuationSecret: undefined,
        apiLicense: undefined,
        llmsFull: false,
        adminLinks: [],
        robotsTxt: false,
        cors: false,
        textSearch: { configuration: 'simple' },
        markdownWorkers: undefined,
      },
    );
    assert.equal(o.pageUrl, DEFAULT_PAGE_URL);
    assert.equal(o.mediaUrl, DEFAULT_MEDIA_URL);
    assert.equal(o.callerAccess({} as Request), 'anonymous');
    assert.equal(o.isAdmin({} as Request), false);
    assert.equal(o.ard.representativeQueries.length, 3);
  });

  it('the default language is the first of languages, and a bad option names itself', () => {
    assert.equal(resolveOptions({ siteTitle: 'Example', languages: ['nl', 'en'], database: { memory: true } }).defaultLanguage, 'nl');
    assert.throws(() => resolveOptions({ siteTitle: 'Example', database: { memory: true }, budgetMs: 50 }), /option "budgetMs"/);
  });
});

describe('public options: the doc comments an editor shows', () => {
  it("every option's description is a doc comment in the declarations the package ships, nested options too", () => {
    const config = ts.getParsedCommandLineOfConfigFile('tsconfig.build.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram(['src/options.ts'], { ...config.options, emitDeclarationOnly: true });
    let declarations = '';
    program.emit(program.getSourceFile('src/options.ts'), (name, text) => void (name.endsWith('options.d.ts') && (declarations = text)), undefined, true);
    const missing = optionRows().filter((row) => !declarations.includes(`* ${row.description.slice(0, 40)}`));
    assert.deepEqual(missing.map((row) => row.path), []);
  });
});
