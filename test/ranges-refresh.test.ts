// `express-agent-discovery ranges --refresh` against operators stood in for by a local server: every list fetched,
// checked and the file replaced in one step with what changed reported; a list that is unreachable, huge, not JSON
// or holds a junk prefix fails the refresh naming it, and the file in place stays byte for byte. A running plugin
// reads the new file without a restart.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../src/cli/run.js';
import { AGENT_RANGES_FILE, createRangesSource, readAgentRanges } from '../src/traffic/agent-ranges.js';
import { parseAddress, rangeListHas } from '../src/traffic/ip-ranges.js';

describe('ranges --refresh', () => {
  let server: Server;
  let origin: string;
  const answers = new Map<string, { status: number; type?: string; body: string }>();
  let dir: string;
  before(async () => {
    server = createServer((req, res) => {
      const a = answers.get(req.url ?? '') ?? { status: 404, body: '' };
      res.writeHead(a.status, a.status === 302 ? { location: 'https://elsewhere.example/x.json' } : { 'content-type': a.type ?? 'application/json' });
      res.end(a.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(path.join(tmpdir(), 'ranges-'));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const file = () => path.join(dir, 'ranges.json');
  const write = () =>
    writeFileSync(
      file(),
      JSON.stringify({
        version: '2026-01-01',
        lists: [
          { key: 'bot-a', operator: 'A', agents: ['gptbot'], url: `${origin}/a.json`, format: 'prefixes', retrieved: '2026-01-01', prefixes: ['192.0.2.0/25'] },
          { key: 'bot-b', operator: 'B', agents: ['amazonbot'], url: `${origin}/b.html`, format: 'amazon-embedded', retrieved: '2026-01-01', prefixes: ['198.51.100.7/32'] },
        ],
        dns: [],
      }),
    );
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(['ranges', ...args], { env: {}, out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };

  it('fetches every list, writes the file in one step, reports what changed; a running plugin reads it again', async () => {
    write();
    const source = createRangesSource(file(), 0);
    const v4 = (a: string) => parseAddress(a)!;
    assert.equal(rangeListHas(source.current().lists.get('gptbot')![0]!, v4('203.0.113.5')), false);
    answers.set('/a.json', { status: 200, body: JSON.stringify({ creationTime: 'x', prefixes: [{ ipv4Prefix: '192.0.2.0/25' }, { ipv4Prefix: '203.0.113.0/24' }, { ipv6Prefix: '2001:db8::/32' }] }) });
    answers.set('/b.html', { status: 200, type: 'text/html', body: `<html><p>your address: 10.9.9.9</p><script>var d = {"creationTime": "2026-12-01", "prefixes": [{"ipv4Prefix": "198.51.100.7"}, {"ipv4Prefix": "198.51.100.8"}]};</script></html>` });
    const { code, out } = await run('--refresh', '--file', file());
    assert.equal(code, 0);
    assert.match(out, /bot-a: 1 → 3 prefixes \(\+2 −0\)/);
    assert.match(out, /bot-b: 1 → 2 prefixes \(\+1 −0\)/);
    const written = JSON.parse(readFileSync(file(), 'utf8'));
    assert.deepEqual(written.lists[1].prefixes, ['198.51.100.7/32', '198.51.100.8/32'], 'the address the page echoes is never taken');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(rangeListHas(source.current().lists.get('gptbot')![0]!, v4('203.0.113.5')), true, 'read again without a restart');
    const listed = await run('--file', file());
    assert.match(listed.out, /bot-a: 3 prefixes of A \(gptbot\)/);
  });

  it('every instance shares one read of an unchanged file; a changed file is read again', async () => {
    assert.equal(readAgentRanges(AGENT_RANGES_FILE), readAgentRanges(AGENT_RANGES_FILE), 'the shipped file, read once');
    assert.equal(createRangesSource(AGENT_RANGES_FILE).current(), readAgentRanges(AGENT_RANGES_FILE));
    write();
    const first = readAgentRanges(file());
    assert.equal(readAgentRanges(file()), first);
    await new Promise((resolve) => setTimeout(resolve, 5));
    writeFileSync(file(), readFileSync(file(), 'utf8').replace('192.0.2.0/25', '192.0.2.0/26'));
    const again = readAgentRanges(file());
    assert.notEqual(again, first, 'a new modification time: read again');
    assert.equal(rangeListHas(again.lists.get('gptbot')![0]!, parseAddress('192.0.2.100')!), false);
    assert.equal(rangeListHas(first.lists.get('gptbot')![0]!, parseAddress('192.0.2.100')!), true);
  });

  for (const [what, answer, message] of [
    ['unreachable', { status: 503, body: '' }, /bot-a .*answered 503/],
    ['not JSON', { status: 200, body: '<html>' }, /bot-a .*not JSON/],
    ['a junk prefix', { status: 200, body: JSON.stringify({ prefixes: [{ ipv4Prefix: '300.1.1.1/24' }] }) }, /bot-a .*not an IP prefix: "300\.1\.1\.1\/24"/],
    ['no prefixes', { status: 200, body: JSON.stringify({ prefixes: [] }) }, /bot-a .*no "prefixes"/],
    ['huge', { status: 200, body: JSON.stringify({ prefixes: [{ ipv4Prefix: '192.0.2.0/24' }], pad: 'x'.repeat(6 * 1024 * 1024) }) }, /bot-a .*larger than/],
    ['a redirect', { status: 302, body: '' }, /bot-a .*(redirect|fetch failed)/],
  ] as const) {
    it(`a list that is ${what} fails the refresh and the file in place stays`, async () => {
      write();
      const before = readFileSync(file(), 'utf8');
      answers.set('/a.json', answer);
      const { code, err } = await run('--refresh', '--file', file());
      assert.equal(code, 1);
      assert.match(err, message);
      assert.match(err, /nothing written/);
      assert.equal(readFileSync(file(), 'utf8'), before);
    });
  }
});
