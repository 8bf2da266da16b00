// The agent catalogue (data/agent-catalogue.json) and the request classifier built on it: real user
// agents of each class, Markdown-first Accept and MCP client names as signals, the privacy rule, the
// input bound, a host's entries, and the catalogue file itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AGENT_CATALOGUE_FILE, AGENT_PURPOSES, loadAgentCatalogue, parseAgentCatalogue, type AgentEntry, type AgentPurpose } from '../src/traffic/agent-catalogue.js';
import { createRequestClassifier, MAX_USER_AGENT_CHARS, type AgentClassification } from '../src/traffic/classify-request.js';
import { REPO_ROOT } from './support/repo.js';

const classifyRequest = createRequestClassifier(loadAgentCatalogue());
const classes = (agent: string, purpose: AgentPurpose): AgentClassification => ({ agent, operator: null, purpose, known: false });
const agent = (key: string, operator: string | null, purpose: AgentPurpose): AgentClassification => ({ agent: key, operator, purpose, known: true });

/** Asserts `fn` throws an Error whose message matches `message`. */
const throwsMessage = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: Error) => {
    assert.match(e.message, message);
    return true;
  });

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const CLAUDE_CODE_ACCEPT = 'text/markdown, text/html, */*';
const CURSOR_ACCEPT = 'text/markdown;q=1.0, text/html;q=0.8, */*;q=0.1';
const HTML_FIRST_FETCHER_ACCEPT = 'text/html, text/markdown, text/plain, */*;q=0.8';
const CHROME_DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** User agents as their operators document them (or, for tools, as their source sends them). */
const REAL: Array<[string, string, AgentClassification]> = [
  ['GPTBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)', agent('gptbot', 'OpenAI', 'training')],
  ['OAI-SearchBot', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36; compatible; OAI-SearchBot/1.3; +https://openai.com/searchbot', agent('oai-searchbot', 'OpenAI', 'search')],
  ['ChatGPT-User', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', agent('chatgpt-user', 'OpenAI', 'user-fetch')],
  ['ClaudeBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', agent('claudebot', 'Anthropic', 'training')],
  ['Claude-User', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)', agent('claude-user', 'Anthropic', 'user-fetch')],
  ["Claude Code's WebFetch", 'Claude-User (claude-code/2.1.92; +https://support.anthropic.com/)', agent('claude-code', 'Anthropic', 'coding-agent')],
  ['PerplexityBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)', agent('perplexitybot', 'Perplexity', 'search')],
  ['Perplexity-User', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)', agent('perplexity-user', 'Perplexity', 'user-fetch')],
  ['Googlebot Smartphone', 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', agent('googlebot', 'Google', 'search')],
  ['Googlebot Desktop', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.69 Safari/537.36', agent('googlebot', 'Google', 'search')],
  ['Googlebot-Image', 'Googlebot-Image/1.0', agent('googlebot-image', 'Google', 'search')],
  ['Bingbot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36', agent('bingbot', 'Microsoft', 'search')],
  ['Applebot', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)', agent('applebot', 'Apple', 'search')],
  ['CCBot', 'CCBot/2.0 (https://commoncrawl.org/faq/)', agent('ccbot', 'Common Crawl Foundation', 'training')],
  ['Bytespider', 'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)', agent('bytespider', 'ByteDance', 'training')],
  ['meta-externalagent', 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)', agent('meta-externalagent', 'Meta', 'training')],
  ['DuckAssistBot', 'DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', agent('duckassistbot', 'DuckDuckGo', 'user-fetch')],
  ['Aider (Playwright)', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.33 Safari/537.36 Aider/0.86.1 +https://aider.chat', agent('aider', null, 'coding-agent')],
  ['FetchKit', 'Everruns FetchKit/1.0', agent('fetchkit', 'Everruns', 'user-fetch')],
  ['curl', 'curl/8.5.0', agent('curl', null, 'other-bot')],
  ['python-requests', 'python-requests/2.32.3', agent('python-requests', null, 'other-bot')],
  ['Go', 'Go-http-client/1.1', agent('go-http-client', null, 'other-bot')],
  ['headless Chrome', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36', agent('headless-chrome', null, 'other-bot')],
  ['Chrome, Windows', CHROME_DESKTOP, classes('browser', 'browser')],
  ['Firefox, Linux', 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', classes('browser', 'browser')],
  ['Safari, macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', classes('browser', 'browser')],
  ['Safari, iPhone', 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', classes('browser', 'browser')],
  ['Chrome, Android', 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', classes('browser', 'browser')],
  ['Firefox, Android', 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0', classes('browser', 'browser')],
  ['an unlisted crawler', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', classes('other-bot', 'other-bot')],
];

describe('classifyRequest: real user agents', () => {
  for (const [name, userAgent, expected] of REAL) {
    it(`${name} → ${expected.agent} (${expected.purpose})`, () => {
      assert.deepEqual(classifyRequest({ userAgent, accept: BROWSER_ACCEPT }), expected);
    });
  }

  it('is a named function, and answers the same the second time (from its memo)', () => {
    assert.equal(classifyRequest.name, 'classifyRequest');
    for (const [, userAgent, expected] of REAL) assert.deepEqual(classifyRequest({ userAgent, accept: '*/*' }), expected);
  });

  it('no user agent, or an empty one, is unknown', () => {
    for (const userAgent of [undefined, '', '   ']) assert.deepEqual(classifyRequest({ userAgent, accept: BROWSER_ACCEPT }), classes('unknown', 'unknown'));
  });
});

describe('classifyRequest: tokens', () => {
  it('matches a token case-insensitively, as a whole word only', () => {
    assert.equal(classifyRequest({ userAgent: 'gptbot/1.0', accept: undefined }).agent, 'gptbot');
    for (const userAgent of ['NotGPTBotX/1.0', 'Mozilla/5.0 (compatible; MyGPTBot/1.0)', 'GPTBot2/1.0', 'x.GPTBot/1.0']) {
      assert.notEqual(classifyRequest({ userAgent, accept: undefined }).agent, 'gptbot', userAgent);
    }
  });

  it('prefers the longest token: Claude Code over Claude-User, OAI-SearchBot over its URL, GoogleOther-Image over nothing', () => {
    assert.equal(classifyRequest({ userAgent: 'Claude-User (claude-code/2.1.92; +https://support.anthropic.com/)', accept: undefined }).agent, 'claude-code');
    assert.equal(classifyRequest({ userAgent: 'Claude-User/1.0', accept: undefined }).agent, 'claude-user');
    assert.equal(classifyRequest({ userAgent: 'GoogleOther-Image/1.0', accept: undefined }).agent, 'googleother');
    assert.equal(classifyRequest({ userAgent: 'Googlebot-Video/1.0', accept: undefined }).agent, 'googlebot-video');
  });

  it('never matches a robots.txt-only token: Google-Extended and Applebot-Extended are not user agents', () => {
    assert.notEqual(classifyRequest({ userAgent: 'Google-Extended/1.0', accept: undefined }).agent, 'google-extended');
    assert.equal(classifyRequest({ userAgent: 'Mozilla/5.0 (Applebot-Extended/0.1; +http://www.apple.com/go/applebot)', accept: undefined }).agent, 'applebot');
  });

  it('a token wins over an MCP client name and over a Markdown-first Accept', () => {
    const gptbot = REAL[0]![1];
    assert.equal(classifyRequest({ userAgent: gptbot, accept: CLAUDE_CODE_ACCEPT, mcpClient: 'claude-code' }).agent, 'gptbot');
    assert.equal(classifyRequest({ userAgent: 'Claude-User (claude-code/2.1.92; +https://support.anthropic.com/)', accept: CLAUDE_CODE_ACCEPT }).agent, 'claude-code');
  });
});

describe('classifyRequest: Accept and MCP client signals', () => {
  it('a browser-like user agent asking for Markdown first is a markdown client (a coding agent)', () => {
    for (const accept of [CLAUDE_CODE_ACCEPT, CURSOR_ACCEPT, 'text/x-markdown, text/html;q=0.5', 'Text/Markdown, text/html;q=0.9']) {
      assert.deepEqual(classifyRequest({ userAgent: CHROME_DESKTOP, accept }), classes('markdown-client', 'coding-agent'), accept);
    }
  });

  it('HTML first, HTML and Markdown equal, or no preference is still a browser', () => {
    for (const accept of [BROWSER_ACCEPT, HTML_FIRST_FETCHER_ACCEPT, 'text/html, text/markdown', '*/*', 'text/markdown;q=0.5, text/html', undefined]) {
      assert.deepEqual(classifyRequest({ userAgent: CHROME_DESKTOP, accept }), classes('browser', 'browser'), String(accept));
    }
  });

  it('a Markdown-first Accept with an unknown user agent is a markdown client too', () => {
    for (const userAgent of [undefined, 'Mozilla/5.0 (compatible; SomeAgent/1.0)']) {
      assert.deepEqual(classifyRequest({ userAgent, accept: CURSOR_ACCEPT }), classes('markdown-client', 'coding-agent'));
    }
  });

  it('an HTTP library asking for Markdown first is a coding agent (Claude Code fetches as axios), not the library', () => {
    for (const userAgent of ['axios/1.7.9', 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'undici', 'python-httpx/0.28.1']) {
      assert.deepEqual(classifyRequest({ userAgent, accept: CLAUDE_CODE_ACCEPT }), classes('markdown-client', 'coding-agent'), userAgent);
      assert.equal(classifyRequest({ userAgent, accept: '*/*' }).purpose, 'other-bot', `${userAgent} without Markdown first is still the library`);
    }
  });

  it('an MCP client name names the agent when the user agent does not, case-insensitively', () => {
    assert.deepEqual(classifyRequest({ userAgent: 'node', accept: '*/*', mcpClient: 'cursor' }), agent('cursor', 'Anysphere', 'coding-agent'));
    assert.deepEqual(classifyRequest({ userAgent: 'node', accept: '*/*', mcpClient: 'claude-code' }), agent('claude-code', 'Anthropic', 'coding-agent'));
    assert.deepEqual(classifyRequest({ userAgent: undefined, accept: undefined, mcpClient: 'Cursor-VSCode' }), agent('cursor', 'Anysphere', 'coding-agent'));
    assert.deepEqual(classifyRequest({ userAgent: CHROME_DESKTOP, accept: undefined, mcpClient: 'claude-ai' }), agent('claude-user', 'Anthropic', 'user-fetch'));
    assert.deepEqual(classifyRequest({ userAgent: 'node', accept: '*/*', mcpClient: 'my-own-client' }), classes('other-bot', 'other-bot'));
  });
});

describe('classifyRequest: privacy and cost', () => {
  it('never keys an unknown agent by its user agent: the text appears nowhere in the result', () => {
    const keys = new Set([...loadAgentCatalogue().agents.map((a) => a.key), 'markdown-client', 'browser', 'other-bot', 'unknown']);
    for (let i = 0; i < 200; i++) {
      const marker = `zq${i}x${(i * 7919).toString(36)}`;
      for (const userAgent of [`Mozilla/5.0 (X11; Linux) AppleWebKit/537.36 (KHTML, like Gecko) ${marker}/1.0 Safari/537.36`, `${marker}/1.0`, `Mozilla/5.0 (compatible; ${marker}bot/2.0)`]) {
        for (const accept of [BROWSER_ACCEPT, CURSOR_ACCEPT]) {
          const result = classifyRequest({ userAgent, accept, mcpClient: marker });
          assert.ok(keys.has(result.agent), result.agent);
          assert.equal(result.known, false);
          assert.doesNotMatch(JSON.stringify(result), new RegExp(marker));
        }
      }
    }
  });

  it(`reads only the first ${MAX_USER_AGENT_CHARS} characters: a 100 KB user agent is answered, a token past the bound is not seen`, () => {
    const tail = 'x'.repeat(100 * 1024);
    assert.equal(classifyRequest({ userAgent: `GPTBot/1.3 ${tail}`, accept: '*/*' }).agent, 'gptbot');
    const late = `${' '.repeat(MAX_USER_AGENT_CHARS)}GPTBot/1.3 ${tail}`;
    assert.notEqual(classifyRequest({ userAgent: late, accept: '*/*' }).agent, 'gptbot');
    const started = performance.now();
    for (let i = 0; i < 200; i++) classifyRequest({ userAgent: `${CHROME_DESKTOP} ${i}${tail}`, accept: BROWSER_ACCEPT });
    assert.ok(performance.now() - started < 2000, 'two hundred 100 KB user agents in under 2 s');
  });

  it('keeps answering right through a flood of distinct user agents, in bounded memory (the memo empties itself)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const classify = createRequestClassifier(loadAgentCatalogue());
    const padding = 'r'.repeat(300);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 50_000; i++) {
      // A fresh flat string per request, as Node's HTTP parser makes.
      const userAgent = Buffer.from(`${CHROME_DESKTOP} ${padding}/${i}`).toString();
      assert.equal(classify({ userAgent, accept: BROWSER_ACCEPT }).agent, 'browser');
      if (i % 997 === 0) assert.equal(classify({ userAgent: `curl/8.${i}`, accept: undefined }).agent, 'curl');
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.ok(grown < 8 * 1024 * 1024, `the heap grew ${(grown / 1024 / 1024).toFixed(1)} MiB for 50,000 distinct user agents`);
    // Used after the measurement, so the classifier (and its memo) was alive during it.
    assert.equal(classify({ userAgent: CHROME_DESKTOP, accept: CURSOR_ACCEPT }).agent, 'markdown-client');
  });
});

describe('loadAgentCatalogue: a host extends the catalogue', () => {
  const acme: AgentEntry = { key: 'acme-bot', tokens: ['AcmeBot'], operator: 'Acme', product: 'AcmeBot', purpose: 'search' };

  it('classifies a host entry, and a host entry replaces the shipped one of the same key', () => {
    const classify = createRequestClassifier(loadAgentCatalogue([acme, { key: 'gptbot', tokens: ['GPTBot'], operator: 'OpenAI', product: 'GPTBot', purpose: 'other-bot' }]));
    assert.deepEqual(classify({ userAgent: 'Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)', accept: undefined }), agent('acme-bot', 'Acme', 'search'));
    assert.equal(classify({ userAgent: REAL[0]![1], accept: undefined }).purpose, 'other-bot');
    assert.equal(classifyRequest({ userAgent: 'AcmeBot/2.1', accept: undefined }).agent, 'other-bot', 'the shipped classifier is unchanged');
    assert.equal(loadAgentCatalogue().agents.find((a) => a.key === 'gptbot')?.purpose, 'training');
  });

  it('refuses an entry with a bad purpose, naming the package, the option and the entry', () => {
    const bad = { ...acme, key: 'bad-bot', purpose: 'spam' } as unknown as AgentEntry;
    throwsMessage(() => loadAgentCatalogue([acme, bad]), /^express-agent-discovery: traffic\.agents\[1\] \("bad-bot"\): purpose: must be one of training, search, user-fetch, coding-agent, other-bot, browser, unknown$/);
  });

  it('refuses an entry without tokens, with a bad key, or given twice', () => {
    throwsMessage(() => loadAgentCatalogue([{ ...acme, tokens: [] }]), /^express-agent-discovery: traffic\.agents\[0\] \("acme-bot"\): tokens: must name at least one token/);
    throwsMessage(() => loadAgentCatalogue([{ ...acme, key: 'Acme Bot' }]), /^express-agent-discovery: traffic\.agents\[0\] \("Acme Bot"\): key: must be/);
    throwsMessage(() => loadAgentCatalogue([acme, acme]), /^express-agent-discovery: traffic\.agents\[1\] \("acme-bot"\): key given twice/);
  });
});

describe('data/agent-catalogue.json', () => {
  const raw = (): Record<string, unknown> & { agents: Array<Record<string, unknown>> } => JSON.parse(readFileSync(AGENT_CATALOGUE_FILE, 'utf8'));
  const catalogue = loadAgentCatalogue();
  const byToken = (token: string) => catalogue.agents.find((a) => a.tokens.some((t) => t.toLowerCase() === token.toLowerCase()));

  it('is the file in the package root’s data/ folder, and validates', () => {
    assert.equal(realpathSync(AGENT_CATALOGUE_FILE), realpathSync(path.join(REPO_ROOT, 'data', 'agent-catalogue.json')));
    assert.doesNotThrow(() => parseAgentCatalogue(raw()));
    assert.deepEqual(AGENT_PURPOSES, ['training', 'search', 'user-fetch', 'coding-agent', 'other-bot', 'browser', 'unknown']);
  });

  it('is dated, and every entry has a purpose documented by a listed source', () => {
    assert.match(catalogue.version, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(new Date(`${catalogue.version}T00:00:00Z`).toISOString().slice(0, 10), catalogue.version);
    const sources = new Map(catalogue.sources.map((s) => [s.name, s]));
    for (const s of catalogue.sources) assert.match(s.url, /^https?:\/\//, s.name);
    assert.ok(catalogue.agents.length > 150, `${catalogue.agents.length} agents`);
    for (const entry of [...catalogue.agents, ...catalogue.mcpClients, ...catalogue.accept]) {
      assert.ok(AGENT_PURPOSES.includes(entry.purpose), `${entry.key}: ${entry.purpose}`);
      assert.ok(entry.source && sources.has(entry.source), `${entry.key}: source ${entry.source}`);
    }
  });

  it('has unique keys and tokens; an MCP client sharing an agent key shares its purpose', () => {
    const keys = catalogue.agents.map((a) => a.key);
    assert.equal(new Set(keys).size, keys.length);
    const tokens = catalogue.agents.flatMap((a) => a.tokens.map((t) => t.toLowerCase()));
    assert.equal(new Set(tokens).size, tokens.length);
    for (const client of catalogue.mcpClients) {
      const same = catalogue.agents.find((a) => a.key === client.key);
      if (same) assert.equal(client.purpose, same.purpose, client.match);
    }
  });

  it('maps the community list to purposes as its operators document them', () => {
    const expected: Partial<Record<AgentPurpose, string[]>> = {
      training: ['GPTBot', 'ClaudeBot', 'CCBot', 'Google-Extended', 'Applebot-Extended', 'Bytespider', 'meta-externalagent'],
      search: ['OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot', 'Googlebot', 'bingbot', 'DuckDuckBot', 'YandexBot', 'Baiduspider', 'Applebot'],
      'user-fetch': ['ChatGPT-User', 'Claude-User', 'Perplexity-User', 'MistralAI-User', 'DuckAssistBot'],
      'coding-agent': ['Cursor', 'Claude-Code', 'Aider'],
      'other-bot': ['curl', 'Wget', 'python-requests', 'axios', 'node-fetch', 'Go-http-client', 'HeadlessChrome'],
    };
    for (const [purpose, list] of Object.entries(expected)) for (const token of list) assert.equal(byToken(token)?.purpose, purpose, token);
    assert.deepEqual(catalogue.agents.filter((a) => a.robotsOnly).map((a) => a.key).sort(), ['applebot-extended', 'google-extended']);
  });

  it('a bad copy is refused, naming the package and the field', () => {
    const refused = (edit: (c: ReturnType<typeof raw>) => void, field: RegExp) => {
      const copy = raw();
      edit(copy);
      throwsMessage(() => parseAgentCatalogue(copy), /^express-agent-discovery: data\/agent-catalogue\.json is not a valid agent catalogue: /);
      throwsMessage(() => parseAgentCatalogue(copy), field);
    };
    refused((c) => (c.agents[0]!.purpose = 'crawling'), /agents\.0\.purpose: must be one of/);
    refused((c) => (c.agents[1]!.key = c.agents[0]!.key), /agents\.1\.key: duplicate key/);
    refused((c) => (c.agents[0]!.source = 'somewhere'), /agents\.0\.source: "somewhere" is not in sources/);
    refused((c) => (c.agents[1]!.tokens = c.agents[0]!.tokens), /agents\.1\.tokens: token .* is also/);
    refused((c) => (c.version = 'December 2026'), /version/);
  });
});
