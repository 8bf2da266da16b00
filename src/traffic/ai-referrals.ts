import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AGENT_CATALOGUE_FILE } from './agent-catalogue.js';

/** The AI assistants whose links are counted as referrals: `data/ai-referrers.json` beside the catalogue. */
export const AI_REFERRERS_FILE = path.join(path.dirname(AGENT_CATALOGUE_FILE), 'ai-referrers.json');

const referrersSchema = z.object({
  version: z.iso.date(),
  assistants: z.array(
    z.object({
      key: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
      name: z.string().min(1),
      operator: z.string().min(1),
      hosts: z.array(z.string().regex(/^[a-z0-9.-]+$/)).min(1),
      utmSources: z.array(z.string().min(1)),
    }),
  ),
});

let operators: ReadonlyMap<string, string> | undefined;

/** The operator of each assistant key (`chatgpt` → `OpenAI`), from the same file. */
export function assistantOperators(): ReadonlyMap<string, string> {
  operators ??= new Map(referrersSchema.parse(JSON.parse(readFileSync(AI_REFERRERS_FILE, 'utf8'))).assistants.map((a) => [a.key, a.operator]));
  return operators;
}

/** The longest Referer or landing path read; longer landing paths are counted under their first 200 characters. */
const MAX_REFERER_CHARS = 2048;
const MAX_LANDING_CHARS = 200;

/**
 * A function naming the AI assistant that referred a request (by its `Referer` host, or subdomain of
 * one, else its `utm_source`), or undefined. Never throws on a malformed Referer or query.
 *
 * ```ts
 * const referrer = createReferralMatcher()
 * referrer('https://chatgpt.com/', 'utm_source=chatgpt.com') // 'chatgpt'
 * ```
 */
export function createReferralMatcher(): (referer: string | undefined, query: string) => string | undefined {
  const file = referrersSchema.parse(JSON.parse(readFileSync(AI_REFERRERS_FILE, 'utf8')));
  const byHost = new Map<string, string>();
  const byUtm = new Map<string, string>();
  for (const a of file.assistants) {
    for (const h of a.hosts) byHost.set(h, a.key);
    for (const u of a.utmSources) byUtm.set(u.toLowerCase(), a.key);
  }
  const hostKey = (host: string): string | undefined => {
    for (let h = host.replace(/^www\./, ''); h.includes('.'); h = h.slice(h.indexOf('.') + 1)) {
      const key = byHost.get(h);
      if (key) return key;
    }
    return undefined;
  };
  return function aiReferrer(referer: string | undefined, query: string): string | undefined {
    if (referer && referer.length <= MAX_REFERER_CHARS) {
      const host = /^https?:\/\/([^/:?#@]+)/i.exec(referer)?.[1]?.toLowerCase();
      const key = host && hostKey(host);
      if (key) return key;
    }
    if (query && query.length <= MAX_REFERER_CHARS && query.includes('utm_source=')) {
      let utm: string | null = null;
      try {
        utm = new URLSearchParams(query).get('utm_source');
      } catch {
        return undefined;
      }
      if (utm) return byUtm.get(utm.toLowerCase());
    }
    return undefined;
  };
}

/** A landing path as counted: the path alone (never the query), at most 200 characters. */
export function landingPath(path: string): string {
  return path.length > MAX_LANDING_CHARS ? path.slice(0, MAX_LANDING_CHARS) : path;
}
