// Web Bot Auth verdicts end to end: requests signed by the library's own signer (and, for the dictionary form
// of Signature-Agent, by hand per RFC 9421), key directories served by local HTTP servers, and what must never
// happen: a fetch of an origin that is not allowed, a verdict of `verified` for anything that does not check.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import {
  createBotVerifier,
  DEFAULT_SIGNATURE_AGENT_ORIGINS,
  SIGNATURES_DIRECTORY_PATH,
  type BotVerifierOptions,
  type SignedRequestLike,
} from '../src/traffic/web-bot-auth.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full garbage collection, from a test (V8's gc, exposed at run time). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const { subtle } = webcrypto;
const PAGE = 'https://site.example/articles/1';

interface KeyPair {
  readonly privateKey: webcrypto.CryptoKey;
  readonly privateJwk: webcrypto.JsonWebKey;
  readonly publicJwk: { kty: string; crv: string; x: string };
  readonly keyid: string;
}

async function keyPair(privateJwk?: webcrypto.JsonWebKey): Promise<KeyPair> {
  let jwk = privateJwk;
  if (!jwk) {
    const generated = (await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    jwk = await subtle.exportKey('jwk', generated.privateKey);
  }
  const privateKey = await subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
  const publicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
  return { privateKey, privateJwk: jwk, publicJwk, keyid: (await signerFromJWK(jwk)).keyid };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface DirectoryServer {
  readonly origin: string;
  requests: number;
  handler: Handler;
  close(): Promise<void>;
}

const servers: DirectoryServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));

/** A key directory on 127.0.0.1 (random port) that counts the requests it gets. */
async function directoryServer(handler: Handler): Promise<DirectoryServer> {
  const server = createServer((req, res) => {
    state.requests += 1;
    state.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: DirectoryServer = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: 0,
    handler,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(state);
  return state;
}

/** Answers the directory path with `keys` as a JWKS, with `headers`. */
function serveKeys(keys: object[], headers: Record<string, string> = {}): Handler {
  return (req, res) => {
    if (req.url !== SIGNATURES_DIRECTORY_PATH) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json', ...headers });
    res.end(JSON.stringify({ keys }));
  };
}

/** Headers of a request signed by the library (`@authority` and `signature-agent`, tag web-bot-auth). */
async function librarySigned(key: KeyPair, agent: string, window: { created?: number; expires?: number } = {}, url = PAGE) {
  const created = new Date(window.created ?? Date.now());
  const expires = new Date(window.expires ?? Date.now() + 7 * 24 * 3600_000);
  const message = { method: 'GET', url, headers: { 'signature-agent': agent } };
  const signed = await signatureHeaders(message, await signerFromJWK(key.privateJwk), { created, expires });
  return { host: new URL(url).host, 'signature-agent': agent, signature: signed.Signature, 'signature-input': signed['Signature-Input'] };
}

/**
 * Headers signed by hand, following RFC 9421 without the library: `components` are the covered identifiers
 * with their values, `params` the signature parameters as serialized.
 */
async function handSigned(key: KeyPair, label: string, components: Array<[string, string]>, params: string) {
  const inner = `(${components.map(([id]) => id).join(' ')})${params}`;
  const base = [...components.map(([id, value]) => `${id}: ${value}`), `"@signature-params": ${inner}`].join('\n');
  const signature = Buffer.from(await subtle.sign('Ed25519', key.privateKey, Buffer.from(base)));
  return { 'signature-input': `${label}=${inner}`, signature: `${label}=:${signature.toString('base64')}:` };
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const currentParams = (key: KeyPair, tag = 'web-bot-auth', created = seconds(Date.now()) - 5, expires = created + 3600) =>
  `;created=${created};expires=${expires};keyid="${key.keyid}";tag="${tag}"`;

/** Headers in the newer dictionary form (`Signature-Agent: g="<origin>"`), as Google-Agent sends them. */
async function dictionarySigned(
  key: KeyPair,
  origin: string,
  options: { tag?: string; created?: number; cover?: 'both' | 'authority' | 'agent' } = {},
) {
  const agentField = `g="${origin}"`;
  const components: Array<[string, string]> = [];
  if (options.cover !== 'agent') components.push(['"@authority"', new URL(PAGE).host]);
  if (options.cover !== 'authority') components.push(['"signature-agent";key="g"', `"${origin}"`]);
  const created = options.created ?? seconds(Date.now()) - 5;
  const signed = await handSigned(key, 'g', components, currentParams(key, options.tag, created, Math.max(created, seconds(Date.now())) + 3600));
  return { host: new URL(PAGE).host, 'signature-agent': agentField, ...signed };
}

const request = (headers: SignedRequestLike['headers'], url = PAGE): SignedRequestLike => ({ method: 'GET', url, headers });

function verifier(allowedOrigins: string[], options: Partial<BotVerifierOptions> = {}) {
  const bots = createBotVerifier({ allowedOrigins, ...options });
  after(() => bots.close());
  return bots;
}

describe('Web Bot Auth: verified', () => {
  it('a request signed by the library against a directory on an allowed origin is verified, and names the origin', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const result = await bots.verify(request(await librarySigned(key, `"${directory.origin}"`)));
    assert.deepEqual(result, { verdict: 'verified', origin: directory.origin, reason: null });
    assert.equal(directory.requests, 1);
  });

  it('the dictionary form (`g="<origin>"`, component `"signature-agent";key="g"`) is verified on its member', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([{ ...key.publicJwk, kid: key.keyid, use: 'sig' }]));
    const bots = verifier([`${directory.origin}/`]);
    assert.deepEqual(await bots.verify(request(await dictionarySigned(key, directory.origin))), { verdict: 'verified', origin: directory.origin, reason: null });
  });

  it('headers in any case, a Signature beside five others (the web-bot-auth one is found)', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const signed = await librarySigned(key, `"${directory.origin}"`);
    const others = ['a', 'b', 'c', 'd', 'e'];
    const headers = {
      'Signature-Agent': signed['signature-agent'],
      Signature: `${others.map((l) => `${l}=:${Buffer.alloc(64, 1).toString('base64')}:`).join(', ')}, ${signed.signature}`,
      'SIGNATURE-INPUT': `${others.map((l) => `${l}=("@authority");created=1;tag="another-scheme"`).join(', ')}, ${signed['signature-input']}`,
    };
    assert.equal((await bots.verify(request(headers))).verdict, 'verified');
  });
});

describe('Web Bot Auth: claimed (signed, not verified)', () => {
  it('a tampered signature, another authority, or another Signature-Agent spelling', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const signed = await librarySigned(key, `"${directory.origin}"`);
    assert.equal((await bots.verify(request(signed))).verdict, 'verified');
    const bytes = Buffer.from(/:(.+):/.exec(signed.signature)![1]!, 'base64');
    bytes[10]! ^= 1;
    const tampered = { ...signed, signature: `sig1=:${bytes.toString('base64')}:` };
    assert.deepEqual(await bots.verify(request(tampered)), { verdict: 'claimed', origin: null, reason: 'bad-signature' });
    assert.deepEqual(await bots.verify(request(signed, 'https://elsewhere.example/articles/1')), { verdict: 'claimed', origin: null, reason: 'bad-signature' });
    assert.equal((await bots.verify(request({ ...signed, 'signature-agent': `"${directory.origin}/"` }))).verdict, 'claimed');
  });

  it('an expired signature, and one created in the future', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const expired = await librarySigned(key, `"${directory.origin}"`, { created: Date.now() - 120_000, expires: Date.now() - 60_000 });
    assert.deepEqual(await bots.verify(request(expired)), { verdict: 'claimed', origin: null, reason: 'expired' });
    const future = await dictionarySigned(key, directory.origin, { created: seconds(Date.now()) + 3600 });
    assert.deepEqual(await bots.verify(request(future)), { verdict: 'claimed', origin: null, reason: 'expired' });
    assert.equal((await bots.verify(request(await dictionarySigned(key, directory.origin)))).verdict, 'verified');
  });

  it("expiry is judged on the verifier's clock", async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const clock = { now: Date.now() };
    const bots = verifier([directory.origin], { now: () => clock.now });
    const signed = request(await librarySigned(key, `"${directory.origin}"`, { expires: Date.now() + 600_000 }));
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    clock.now += 601_000;
    assert.equal((await bots.verify(signed)).verdict, 'claimed');
  });

  it('a tag other than web-bot-auth, a signature that does not cover Signature-Agent or the authority', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    for (const headers of [
      await dictionarySigned(key, directory.origin, { tag: 'other' }),
      await dictionarySigned(key, directory.origin, { cover: 'authority' }),
      await dictionarySigned(key, directory.origin, { cover: 'agent' }),
    ]) {
      assert.equal((await bots.verify(request(headers))).verdict, 'claimed', headers['signature-input']);
    }
  });

  it('a keyid the directory does not hold, and the RFC 9421 test key (its private half is public)', async () => {
    const key = await keyPair();
    const other = await keyPair();
    const rfc9421TestKey = { d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
    const testKey = await keyPair({ kty: 'OKP', crv: 'Ed25519', ...rfc9421TestKey });
    const directory = await directoryServer(serveKeys([other.publicJwk, testKey.publicJwk]));
    const bots = verifier([directory.origin]);
    assert.equal((await bots.verify(request(await librarySigned(key, `"${directory.origin}"`)))).verdict, 'claimed');
    assert.equal((await bots.verify(request(await librarySigned(testKey, `"${directory.origin}"`)))).verdict, 'claimed');
    assert.equal((await bots.verify(request(await librarySigned(other, `"${directory.origin}"`)))).verdict, 'verified');
  });

  it('a Signature-Agent not on the list is never fetched, however well signed', async () => {
    const key = await keyPair();
    const allowed = await directoryServer(serveKeys([key.publicJwk]));
    const stranger = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([allowed.origin]);
    for (const agent of [`"${stranger.origin}"`, `g="${stranger.origin}"`, `"${stranger.origin}${SIGNATURES_DIRECTORY_PATH}"`]) {
      const result = await bots.verify(request(await librarySigned(key, agent)));
      // An origin off the list is named as such; a directory URL with a path is no directory member at all.
      assert.deepEqual(result, { verdict: 'claimed', origin: null, reason: agent.startsWith('"') && !agent.includes(SIGNATURES_DIRECTORY_PATH) ? 'origin-not-allowed' : 'no-directory' });
    }
    assert.equal((await bots.verify(request(await dictionarySigned(key, stranger.origin)))).verdict, 'claimed');
    assert.equal(stranger.requests, 0);
    assert.equal(allowed.requests, 0);
    assert.equal((await bots.verify(request(await librarySigned(key, `"${allowed.origin}"`)))).verdict, 'verified');
  });

  it('a Signature-Agent missing, or not an origin (a path, a type other than directory)', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const signed = await librarySigned(key, `"${directory.origin}"`);
    const { 'signature-agent': _agent, ...withoutAgent } = signed;
    assert.equal((await bots.verify(request(withoutAgent))).verdict, 'claimed');
    for (const agent of [`"${directory.origin}/keys"`, `"${directory.origin}?x=1"`]) {
      assert.equal((await bots.verify(request(await librarySigned(key, agent)))).verdict, 'claimed', agent);
    }
    const otherType = await dictionarySigned(key, directory.origin);
    const typed = { ...otherType, 'signature-agent': `g="${directory.origin}";type=keyring` };
    assert.deepEqual(await bots.verify(request(typed)), { verdict: 'claimed', origin: null, reason: 'no-directory' });
    assert.equal(directory.requests, 0);
    // The draft's `type=jwks_uri` names the allowed origin's keys too; relabelled after signing, it no longer checks.
    const relabelled = { ...otherType, 'signature-agent': `g="${directory.origin}";type=jwks_uri` };
    assert.deepEqual(await bots.verify(request(relabelled)), { verdict: 'claimed', origin: null, reason: 'bad-signature' });
  });

  it('a directory that does not answer in time: claimed within the timeout and a margin', { timeout: 5000 }, async () => {
    const key = await keyPair();
    const silent = await directoryServer(() => undefined);
    const bots = verifier([silent.origin], { timeoutMs: 300 });
    const signed = request(await librarySigned(key, `"${silent.origin}"`));
    const started = performance.now();
    const verdict = bots.verify(signed);
    // Garbage collections while the directory is silent: on Node 20 an AbortSignal.any over
    // AbortSignal.timeout lost its timeout in one, and the fetch waited for ever.
    for (const ms of [30, 120]) setTimeout(collectGarbage, ms);
    assert.equal((await verdict).verdict, 'claimed');
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 1300, `${elapsed} ms`);
    assert.equal(silent.requests, 1);
  });

  it('a directory answering junk, another status, a redirect, or more than the byte limit (with or without Content-Length)', async () => {
    const key = await keyPair();
    const jwks = JSON.stringify({ keys: [key.publicJwk], padding: 'x'.repeat(1024 * 1024) });
    const answers: Record<string, Handler> = {
      junk: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not a directory'),
      'no keys': (_req, res) => res.writeHead(200).end('{"keys": "none"}'),
      'not utf-8': (_req, res) => res.writeHead(200).end(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
      404: (_req, res) => res.writeHead(404).end(JSON.stringify({ keys: [key.publicJwk] })),
      redirect: (req, res) => {
        if (req.url !== '/elsewhere') return void res.writeHead(302, { location: '/elsewhere' }).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
      },
      'kid that is not the thumbprint': serveKeys([{ ...key.publicJwk, kid: 'key-1' }]),
      'key for encryption': serveKeys([{ ...key.publicJwk, use: 'enc' }]),
      '1 MB with length': (_req, res) => res.writeHead(200, { 'content-length': Buffer.byteLength(jwks) }).end(jwks),
      '1 MB chunked': (_req, res) => {
        res.writeHead(200);
        for (let i = 0; i < jwks.length; i += 16 * 1024) res.write(jwks.slice(i, i + 16 * 1024));
        res.end();
      },
    };
    for (const [name, handler] of Object.entries(answers)) {
      const directory = await directoryServer(handler);
      const bots = verifier([directory.origin]);
      assert.equal((await bots.verify(request(await librarySigned(key, `"${directory.origin}"`)))).verdict, 'claimed', name);
    }
    const roomy = await directoryServer(answers['1 MB chunked']!);
    const bots = verifier([roomy.origin], { maxDirectoryBytes: 2 * 1024 * 1024 });
    assert.equal((await bots.verify(request(await librarySigned(key, `"${roomy.origin}"`)))).verdict, 'verified');
  });

  it('a Content-Length over the limit is refused before the body is read', { timeout: 5000 }, async () => {
    const key = await keyPair();
    const stalling = await directoryServer((_req, res) => {
      res.writeHead(200, { 'content-length': 1_000_000 });
      res.write('{"keys": [');
    });
    const bots = verifier([stalling.origin], { timeoutMs: 3000 });
    const started = performance.now();
    assert.equal((await bots.verify(request(await librarySigned(key, `"${stalling.origin}"`)))).verdict, 'claimed');
    assert.ok(performance.now() - started < 1000);
  });

  it('a 100 KB Signature header is not parsed: claimed at once, nothing fetched', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin]);
    const signed = await librarySigned(key, `"${directory.origin}"`);
    const huge = { ...signed, signature: `${signed.signature}, ${'a'.repeat(100_000)}=:${Buffer.alloc(64).toString('base64')}:` };
    const started = performance.now();
    assert.equal((await bots.verify(request(huge))).verdict, 'claimed');
    assert.ok(performance.now() - started < 100);
    assert.equal(directory.requests, 0);
  });
});

describe('Web Bot Auth: unsigned', () => {
  it('no Signature and no Signature-Input: unsigned, even with a Signature-Agent', async () => {
    const directory = await directoryServer(serveKeys([]));
    const bots = verifier([directory.origin]);
    assert.deepEqual(await bots.verify(request({ 'user-agent': 'Mozilla/5.0' })), { verdict: 'unsigned', origin: null, reason: null });
    assert.equal((await bots.verify(request({ 'signature-agent': `"${directory.origin}"` }))).verdict, 'unsigned');
    assert.equal((await bots.verify(request({ signature: undefined }))).verdict, 'unsigned');
    assert.equal((await bots.verify(request({ 'signature-input': 'sig1=()' }))).verdict, 'claimed');
    assert.equal(directory.requests, 0);
  });
});

describe('Web Bot Auth: the key directory cache', () => {
  async function setup(headers: Record<string, string>) {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk], headers));
    const clock = { now: Date.now() };
    const bots = verifier([directory.origin], { now: () => clock.now });
    const signed = request(await librarySigned(key, `"${directory.origin}"`));
    return { key, directory, clock, bots, signed };
  }

  it('honours max-age: one fetch while fresh, a new one after', async () => {
    const { directory, clock, bots, signed } = await setup({ 'cache-control': 'public, max-age=300' });
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    clock.now += 299_000;
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    assert.equal(directory.requests, 1);
    clock.now += 2000;
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    assert.equal(directory.requests, 2);
  });

  it('bounds max-age below at 60 s, subtracts Age, and keeps 1 h without a Cache-Control', async () => {
    const short = await setup({ 'cache-control': 'max-age=5' });
    await short.bots.verify(short.signed);
    short.clock.now += 30_000;
    await short.bots.verify(short.signed);
    assert.equal(short.directory.requests, 1);
    short.clock.now += 31_000;
    await short.bots.verify(short.signed);
    assert.equal(short.directory.requests, 2);

    const aged = await setup({ 'cache-control': 'max-age=600', age: '500' });
    await aged.bots.verify(aged.signed);
    aged.clock.now += 101_000;
    await aged.bots.verify(aged.signed);
    assert.equal(aged.directory.requests, 2);

    const plain = await setup({});
    await plain.bots.verify(plain.signed);
    plain.clock.now += 59 * 60_000;
    await plain.bots.verify(plain.signed);
    assert.equal(plain.directory.requests, 1);
    plain.clock.now += 2 * 60_000;
    await plain.bots.verify(plain.signed);
    assert.equal(plain.directory.requests, 2);
  });

  it('concurrent verifications of one origin share one fetch', async () => {
    const key = await keyPair();
    const slow = serveKeys([key.publicJwk]);
    const directory = await directoryServer((req, res) => setTimeout(() => slow(req, res), 200));
    const bots = verifier([directory.origin]);
    const signed = request(await librarySigned(key, `"${directory.origin}"`));
    const results = await Promise.all(Array.from({ length: 25 }, () => bots.verify(signed)));
    assert.ok(results.every((r) => r.verdict === 'verified'));
    assert.equal(directory.requests, 1);
  });

  it('a failed fetch is remembered for 60 s, then tried again', async () => {
    const key = await keyPair();
    const directory = await directoryServer((_req, res) => res.writeHead(503).end());
    const clock = { now: Date.now() };
    const bots = verifier([directory.origin], { now: () => clock.now });
    const signed = request(await librarySigned(key, `"${directory.origin}"`));
    for (let i = 0; i < 20; i++) assert.equal((await bots.verify(signed)).verdict, 'claimed');
    clock.now += 59_000;
    assert.equal((await bots.verify(signed)).verdict, 'claimed');
    assert.equal(directory.requests, 1);
    directory.handler = serveKeys([key.publicJwk]);
    clock.now += 2000;
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    assert.equal(directory.requests, 2);
  });

  it('an outage keeps the last good keys (up to a day past their lifetime); a directory without the key drops it', async () => {
    const { key, directory, clock, bots, signed } = await setup({ 'cache-control': 'max-age=60' });
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    directory.handler = (_req, res) => res.writeHead(500).end();
    clock.now += 61_000;
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    assert.equal(directory.requests, 2);
    clock.now += 25 * 3600_000;
    assert.equal((await bots.verify(signed)).verdict, 'claimed');

    directory.handler = serveKeys([key.publicJwk], { 'cache-control': 'max-age=60' });
    clock.now += 61_000;
    assert.equal((await bots.verify(signed)).verdict, 'verified');
    directory.handler = serveKeys([(await keyPair()).publicJwk]);
    clock.now += 61_000;
    assert.equal((await bots.verify(signed)).verdict, 'claimed');
  });

  it('close() ends a fetch in flight, and later signed requests are claimed without a fetch', { timeout: 5000 }, async () => {
    const key = await keyPair();
    const silent = await directoryServer(() => undefined);
    const bots = createBotVerifier({ allowedOrigins: [silent.origin], timeoutMs: 10_000 });
    const signed = request(await librarySigned(key, `"${silent.origin}"`));
    const pending = bots.verify(signed);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    bots.close();
    assert.equal((await pending).verdict, 'claimed');
    assert.ok(performance.now() - started < 1000);
    assert.equal((await bots.verify(signed)).verdict, 'claimed');
    assert.equal(silent.requests, 1);
  });
});

describe('Web Bot Auth: options', () => {
  it('takes https origins (normalised) and http only on loopback; names the bad entry', () => {
    assert.doesNotThrow(() => createBotVerifier({ allowedOrigins: DEFAULT_SIGNATURE_AGENT_ORIGINS }).close());
    assert.doesNotThrow(() => createBotVerifier({ allowedOrigins: ['HTTPS://ChatGPT.com:443/', 'http://localhost:8080', 'http://[::1]:1'] }).close());
    const refused = ['http://chatgpt.com', 'https://chatgpt.com/path', 'https://chatgpt.com/?q', 'chatgpt.com'];
    refused.push('ftp://x.example', 'https://u:p@x.example', 'http://10.0.0.1');
    for (const bad of refused) {
      assert.throws(() => createBotVerifier({ allowedOrigins: ['https://chatgpt.com', bad] }), /express-agent-discovery: allowedOrigins\[1\]/, bad);
    }
    assert.throws(() => createBotVerifier({ allowedOrigins: [], timeoutMs: 0 }), /timeoutMs/);
    assert.throws(() => createBotVerifier({ allowedOrigins: [], maxDirectoryBytes: 1.5 }), /maxDirectoryBytes/);
    assert.ok(DEFAULT_SIGNATURE_AGENT_ORIGINS.includes('https://chatgpt.com') && Object.isFrozen(DEFAULT_SIGNATURE_AGENT_ORIGINS));
  });

  it('a normalised allowed origin matches the header spelled another way', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const bots = verifier([directory.origin.replace('http://', 'HTTP://')]);
    assert.equal((await bots.verify(request(await librarySigned(key, `"${directory.origin}/"`)))).verdict, 'verified');
  });
});

describe('Web Bot Auth: forged and malformed headers', () => {
  it('never throw, never verify, and never fetch an origin off the list (300 random header sets)', async () => {
    const key = await keyPair();
    const directory = await directoryServer(serveKeys([key.publicJwk]));
    const fetched: string[] = [];
    const bots = verifier([directory.origin], {
      fetch: (input, init) => {
        fetched.push(String(input));
        return fetch(input, init);
      },
    });
    const now = seconds(Date.now());
    const component = fc.constantFrom(
      ...['"@authority"', '"signature-agent"', '"signature-agent";key="g"', '"signature-agent";key="x"', '"@method"', '"@target-uri"'],
      ...['"@path"', '"content-digest"', '@authority', '"SIGNATURE-AGENT"'],
    );
    const param = fc.oneof(
      fc.integer({ min: now - 600, max: now + 600 }).map((t) => `;created=${t}`),
      fc.integer({ min: now - 600, max: now + 86_400 }).map((t) => `;expires=${t}`),
      fc.constantFrom(`;keyid="${key.keyid}"`, ';keyid="nope"', ';keyid=1', ';tag="web-bot-auth"', ';tag=web-bot-auth', ';tag="other"'),
      fc.constantFrom(';alg="ed25519"', ';alg="hmac-sha256"', ';nonce="abc"'),
      fc.string({ maxLength: 20 }).map((s) => `;${s}`),
    );
    const label = fc.constantFrom('sig1', 'g', 'x', 'sig1.b', '');
    const input = fc.oneof(
      fc
        .tuple(label, fc.array(component, { maxLength: 5 }), fc.array(param, { maxLength: 8 }))
        .map(([l, c, p]) => `${l}=(${c.join(' ')})${p.join('')}`),
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
    );
    const signature = fc.oneof(
      fc.tuple(label, fc.uint8Array({ minLength: 0, maxLength: 80 })).map(([l, b]) => `${l}=:${Buffer.from(b).toString('base64')}:`),
      fc.string({ maxLength: 200 }),
    );
    const agent = fc.oneof(
      fc.constantFrom(`"${directory.origin}"`, `g="${directory.origin}"`, `g="${directory.origin}";type=directory`),
      fc.constant(`x="${directory.origin}", g="https://evil.example"`),
      fc.constantFrom('"https://evil.example"', 'g="http://127.0.0.1:1"', '"file:///etc/passwd"', `${directory.origin}`, '"http://169.254.169.254"'),
      fc.string({ maxLength: 120 }),
    );
    const forged = fc
      .tuple(
        label,
        fc.constantFrom(['"signature-agent"', `"${directory.origin}"`], ['"signature-agent";key="g"', `g="${directory.origin}"`]),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
      )
      .map(([l, [agentComponent, agentField], bytes]) => ({
        signature: `${l}=:${Buffer.from(bytes).toString('base64')}:`,
        'signature-input': `${l}=("@authority" ${agentComponent});created=${now - 5};expires=${now + 600};keyid="${key.keyid}";tag="web-bot-auth"`,
        'signature-agent': agentField,
      }));
    const headers = fc.oneof(fc.record({ signature, 'signature-input': input, 'signature-agent': agent }, { requiredKeys: [] }), forged);
    await fc.assert(
      fc.asyncProperty(headers, async (h) => {
        const result = await bots.verify(request({ host: 'site.example', ...h }));
        assert.notEqual(result.verdict, 'verified');
        assert.equal(result.origin, null);
        const signed = h.signature !== undefined || h['signature-input'] !== undefined;
        assert.equal(result.verdict, signed ? 'claimed' : 'unsigned');
      }),
      { numRuns: 300 },
    );
    assert.ok(fetched.length >= 1, 'the forged requests reached the allowed directory');
    assert.deepEqual([...new Set(fetched)], [`${directory.origin}${SIGNATURES_DIRECTORY_PATH}`]);
  });
});
