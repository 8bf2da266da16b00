// Reverse-then-forward DNS verification, off the request path, against a resolver stood in for by scripted
// answers (the checks it makes are the operators' documented steps): a PTR name under the operator's domain
// whose forward record gives the address back verifies; a PTR that lies (no matching forward record), a name
// under another domain, an error or a lookup past its timeout do not; lookups are bounded in concurrency and
// cached; `known` never waits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDnsVerifier, type DnsLookups } from '../src/traffic/reverse-dns.js';

const GOOGLE = ['.googlebot.com', '.google.com'];

function scripted(ptr: Record<string, string[] | 'hang' | 'error'>, forward: Record<string, string[]>) {
  let reverses = 0;
  const lookups: DnsLookups = {
    reverse: (address) => {
      reverses++;
      const answer = ptr[address];
      if (answer === 'hang') return new Promise(() => {});
      if (answer === 'error' || !answer) return Promise.reject(new Error('ENOTFOUND'));
      return Promise.resolve(answer);
    },
    forward: (name) => Promise.resolve(forward[name] ?? []),
  };
  return { lookups, reverses: () => reverses };
}

describe('reverse DNS verification', () => {
  it('verifies a PTR under the operator domain whose forward record gives the address back, and nothing else', async () => {
    const { lookups } = scripted(
      {
        '66.249.66.1': ['crawl-66-249-66-1.googlebot.com.'],
        '203.0.113.9': ['crawl-fake.googlebot.com'],
        '198.51.100.4': ['host.example.net'],
        '2001:4860:4801:10::7': ['crawl-2001.googlebot.com'],
        '192.0.2.1': 'error',
      },
      { 'crawl-66-249-66-1.googlebot.com': ['66.249.66.1'], 'crawl-fake.googlebot.com': ['66.249.66.200'], 'host.example.net': ['198.51.100.4'], 'crawl-2001.googlebot.com': ['2001:4860:4801:10::7'] },
    );
    const dns = createDnsVerifier({ lookups, concurrency: 10 });
    for (const a of ['66.249.66.1', '203.0.113.9', '198.51.100.4', '2001:4860:4801:10::7', '192.0.2.1']) {
      assert.equal(dns.known(a, GOOGLE), undefined, 'nothing known before a lookup: known never waits');
      dns.lookup(a);
    }
    await dns.settled();
    assert.equal(dns.known('66.249.66.1', GOOGLE), true);
    assert.equal(dns.known('2001:4860:4801:10::7', GOOGLE), true);
    assert.equal(dns.known('203.0.113.9', GOOGLE), false, 'a PTR without the matching forward record lies');
    assert.equal(dns.known('198.51.100.4', GOOGLE), false, 'a name under another domain');
    assert.equal(dns.known('66.249.66.1', ['.search.msn.com']), false, "verified, but not as Bing's");
    assert.equal(dns.known('192.0.2.1', GOOGLE), false, 'an error is a negative answer');
  });

  it('gives up past its timeout, bounds the lookups in flight, and caches answers', async () => {
    const { lookups, reverses } = scripted({ '203.0.113.1': 'hang', '203.0.113.2': 'hang', '203.0.113.3': 'hang', '66.249.66.1': ['a.googlebot.com'] }, { 'a.googlebot.com': ['66.249.66.1'] });
    const dns = createDnsVerifier({ lookups, concurrency: 2, timeoutMs: 50 });
    // The verifier's timers do not hold a process open (a server does): hold this one while it waits.
    const alive = setInterval(() => {}, 1000);
    dns.lookup('203.0.113.1');
    dns.lookup('203.0.113.2');
    dns.lookup('203.0.113.3');
    assert.equal(reverses(), 2, 'no third lookup while two are in flight');
    await dns.settled();
    assert.equal(dns.known('203.0.113.1', GOOGLE), false, 'timed out: not verified');
    assert.equal(dns.known('203.0.113.3', GOOGLE), undefined, 'not started: still unknown');
    dns.lookup('66.249.66.1');
    await dns.settled();
    dns.lookup('66.249.66.1');
    await dns.settled();
    assert.equal(reverses(), 3, 'a cached answer is not looked up again');
    clearInterval(alive);
    dns.close();
  });
});
