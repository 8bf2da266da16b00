import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { badRequest } from './errors.js';

/**
 * Opaque keyset continuations carried in `next_url` (`cursor=`). A position is sealed with
 * AES-256-GCM: the client can neither read it (a skipped hidden candidate's id never shows) nor
 * edit it, and the query it came from (route, every parameter, the page it opens) is bound as
 * associated data, so a cursor transplanted to another query is a 400 like a tampered one.
 * The nonce is derived from the associated data and the position (SIV-style) rather than drawn at
 * random: the same page always carries the same `next_url`, so its strong ETag and 304 hold, and two
 * different plaintexts never share a nonce.
 */
export interface ContinuationCodec {
  /** Seals the position from which the page `page` of the query `scope` continues. */
  encode(scope: string, page: number, position: readonly number[]): string;
  /** Opens a continuation for page `page` of `scope`: exactly `length` safe integers, else a 400. */
  decode(scope: string, page: number, token: string, length: number): number[];
}

const IV_BYTES = 12;
/** Three safe integers with signs and separators fit in 56 characters. */
const PLAINTEXT_BYTES = 64;
const TAG_BYTES = 16;
/** How many sealed continuations `encode` remembers (the oldest goes first). */
const REMEMBERED_CONTINUATIONS = 512;

/**
 * A codec keyed by `secret` (give every instance behind one load balancer the same secret), or by a
 * random per-process key: then continuations stop working across restarts (a 400 asking to start over).
 */
export function createContinuationCodec(secret?: string): ContinuationCodec {
  const root = secret ? createHash('sha256').update(`express-agent-discovery/continuation\n${secret}`).digest() : randomBytes(32);
  const key = createHmac('sha256', root).update('encryption').digest();
  const nonceKey = createHmac('sha256', root).update('nonce').digest();
  const invalid = () => badRequest('cursor', 'invalid, altered or from another query or process; follow next_url from the first page again');
  // The sealing is deterministic (same query, page and position, same token), so a token sealed
  // recently is handed out again rather than sealed anew: creating the HMAC and the cipher cost
  // 30 to 60 µs per page in a loaded server (OpenSSL 3 looks the algorithms up on every call). Only
  // the token is remembered; the page itself is read and built for every request.
  const sealedTokens = new Map<string, string>();
  return Object.freeze({
    encode(scope: string, page: number, position: readonly number[]): string {
      const aad = `${scope}\npage=${page}`;
      // Padded to a fixed width: GCM keeps the plaintext length, which would tell how many digits the
      // position (perhaps a hidden candidate's id) has.
      const plaintext = JSON.stringify(position).padEnd(PLAINTEXT_BYTES, ' ');
      const nonceInput = `${aad}\n${plaintext}`;
      const known = sealedTokens.get(nonceInput);
      if (known !== undefined) return known;
      const iv = createHmac('sha256', nonceKey).update(nonceInput).digest().subarray(0, IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const token = Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
      if (sealedTokens.size >= REMEMBERED_CONTINUATIONS) sealedTokens.delete(sealedTokens.keys().next().value!);
      sealedTokens.set(nonceInput, token);
      return token;
    },
    decode(scope: string, page: number, token: string, length: number): number[] {
      const raw = Buffer.from(token, 'base64url');
      if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== token) throw invalid();
      let text: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(`${scope}\npage=${page}`));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw invalid();
      }
      let position: unknown;
      try {
        position = JSON.parse(text);
      } catch {
        throw invalid();
      }
      if (!Array.isArray(position) || position.length !== length || !position.every((v) => Number.isSafeInteger(v))) throw invalid();
      return position as number[];
    },
  });
}

/** The scope string of a query: the route plus its parameters except the paging position. */
export function continuationScope(route: string, params: Record<string, unknown>): string {
  const rest = Object.entries(params)
    .filter(([k, v]) => k !== 'page' && k !== 'cursor' && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${route}?${JSON.stringify(rest)}`;
}
