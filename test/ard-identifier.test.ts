import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ARD_PLACEHOLDER_PUBLISHER, ardIdentifier, ardPublisher } from '../src/discovery/ard-manifest.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';

/** The identifier pattern of the ARD conformance tool (`conformance-test`, ARD v0.91). */
const CONFORMANCE_URN = /^urn:air:([a-zA-Z0-9.-]+)(?::([a-zA-Z0-9._:-]+))?:([a-zA-Z0-9._-]+)$/;
/** The identifier pattern of the ARD catalog JSON Schema. */
const SCHEMA_URN = /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/;
/** A fully qualified domain name as the ARD naming guide asks of a publisher: two or more LDH labels, not an IP. */
const FQDN = /^(?=.{1,253}$)(?:(?!-)[a-z0-9-]{1,63}(?<!-)\.)+(?!-)(?![0-9]+$)[a-z0-9-]{1,63}(?<!-)$/;

function assertValid(identifier: string, publisher: string): void {
  assert.match(identifier, CONFORMANCE_URN);
  assert.match(identifier, SCHEMA_URN);
  assert.equal(CONFORMANCE_URN.exec(identifier)![1], publisher);
  assert.match(publisher, FQDN);
}

describe('the ARD publisher rule', () => {
  const cases: [string, string][] = [
    ['https://example.org', 'example.org'],
    ['https://Docs.Example.ORG:8443', 'docs.example.org'],
    ['https://example.org.', 'example.org'],
    ['http://example.org:8080/site', 'example.org'],
    ['https://bücher.example', 'xn--bcher-kva.example'],
    ['http://agent.localhost:3000', 'agent.localhost'],
    ['http://[::1]:3000', ARD_PLACEHOLDER_PUBLISHER],
    ['http://[2001:db8::1]', ARD_PLACEHOLDER_PUBLISHER],
    ['http://127.0.0.1:3000', ARD_PLACEHOLDER_PUBLISHER],
    ['http://10.1.2.3', ARD_PLACEHOLDER_PUBLISHER],
    ['http://localhost:3000', ARD_PLACEHOLDER_PUBLISHER],
    ['http://intranet', ARD_PLACEHOLDER_PUBLISHER],
    ['http://my_host.example', ARD_PLACEHOLDER_PUBLISHER],
    ['http://-bad.example', ARD_PLACEHOLDER_PUBLISHER],
    ['not a url', ARD_PLACEHOLDER_PUBLISHER],
    ['http://example.org:65536', ARD_PLACEHOLDER_PUBLISHER],
  ];
  for (const [base, publisher] of cases) {
    it(`${base} → ${publisher}`, () => {
      assert.equal(ardPublisher(base), publisher);
      assertValid(ardIdentifier(base, 'content', 'api'), publisher);
    });
  }
});

for (const backend of surfaceBackends) {
  describe(`/.well-known/ard.json identifiers over HTTP [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let host: HostApp;
    let configured: HostApp;
    before(async () => {
      demo = await openDemoDatabase(backend);
      host = await startHostApp(demo.db);
      configured = await startHostApp(demo.db, { baseUrl: 'https://www.example.net' });
    });
    after(async () => {
      await host?.close();
      await configured?.close();
      await demo?.close();
    });

    const identifierFor = async (origin: string, hostHeader: string) => {
      const res = await rawRequest(`${origin}/.well-known/ard.json`, { headers: { Host: hostHeader } });
      assert.equal(res.status, 200, hostHeader);
      return (JSON.parse(res.body) as { entries: { identifier: string; url: string }[] }).entries[0]!;
    };

    it('request hosts that are not domain names get the reserved placeholder, never an invalid URN', async () => {
      for (const hostHeader of ['[::1]', '[::1]:3000', '127.0.0.1', '127.0.0.1:3000', 'localhost:3000', 'intranet']) {
        const entry = await identifierFor(host.origin, hostHeader);
        assert.equal(entry.identifier, `urn:air:${ARD_PLACEHOLDER_PUBLISHER}:content:api`, hostHeader);
        assertValid(entry.identifier, ARD_PLACEHOLDER_PUBLISHER);
        assert.equal(entry.url, `http://${hostHeader.toLowerCase()}/openapi.json`, 'the location still follows the request');
      }
    });

    it('a domain-name request host is the publisher, lower-case and without its port', async () => {
      const entry = await identifierFor(host.origin, 'News.Example.org:8080');
      assert.equal(entry.identifier, 'urn:air:news.example.org:content:api');
      assertValid(entry.identifier, 'news.example.org');
    });

    it('a configured baseUrl decides the publisher whatever the request host', async () => {
      for (const hostHeader of ['[::1]:3000', 'evil.example.com', '127.0.0.1']) {
        const entry = await identifierFor(configured.origin, hostHeader);
        assert.equal(entry.identifier, 'urn:air:www.example.net:content:api', hostHeader);
        assert.equal(entry.url, 'https://www.example.net/openapi.json');
      }
    });
  });
}
