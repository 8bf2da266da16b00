/** The parameter names of an OpenAPI path template: `'/api/agent/related/{id}'` → `'id'`. */
export type TemplateParams<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | TemplateParams<Rest> : never;

/**
 * One path the plugin answers, written once as an OpenAPI path template. The Express pattern, the
 * OpenAPI `paths` key and every URL built to it come from the same string.
 *
 * ```ts
 * const resource = pathTemplate('/api/agent/resource/{id}')
 * resource.expressPath    // '/api/agent/resource/:id'
 * resource.url({ id: 7 }) // '/api/agent/resource/7'
 * ```
 */
export interface PathTemplate<K extends string = string> {
  /** The OpenAPI form, `/api/agent/resource/{id}`. */
  readonly template: string;
  /** The Express form, `/api/agent/resource/:id`. */
  readonly expressPath: string;
  /** The parameter names, in order. */
  readonly params: readonly K[];
  /** The path with each parameter percent-encoded. */
  url(...values: [K] extends [never] ? [] : [Record<K, number | string>]): string;
  /** The raw (still percent-encoded) parameters of a path this template matches, else undefined. */
  match(path: string): Record<K, string> | undefined;
}

export function pathTemplate<T extends string>(template: T): PathTemplate<TemplateParams<T>> {
  type K = TemplateParams<T>;
  const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as K);
  // The literal pieces between the parameters: `url()` joins them (no regular expression per call).
  const pieces = template.split(/\{\w+\}/);
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '([^/?#]+)')}$`);
  return Object.freeze({
    template,
    expressPath: template.replace(/\{(\w+)\}/g, ':$1'),
    params,
    url(...values: [Record<K, number | string>] | []): string {
      const given = values[0];
      if (!given) return template;
      let out = pieces[0]!;
      for (let i = 0; i < params.length; i++) out += encodeURIComponent(String(given[params[i]!])) + pieces[i + 1]!;
      return out;
    },
    match(path: string): Record<K, string> | undefined {
      const found = pattern.exec(path);
      return found ? (Object.fromEntries(params.map((name, i) => [name, found[i + 1]!])) as Record<K, string>) : undefined;
    },
  });
}

/** Query values that `application/x-www-form-urlencoded` serialization leaves as they are. */
const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;

/** One `name=value` query pair as `URLSearchParams` serializes it; the common case (nothing to encode) without building one. */
export function formPair(name: string, value: string): string {
  return FORM_SAFE.test(name) && FORM_SAFE.test(value) ? `${name}=${value}` : new URLSearchParams([[name, value]]).toString();
}

/** An absolute URL on the public base, with an optional query (serialized as `URLSearchParams` does). */
export function absoluteUrl(base: string, path: string, query?: Record<string, string | number | undefined>): string {
  if (!query) return `${base}${path}`;
  let qs = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    // The common case (a language code, an id) needs no encoding; anything else goes through URLSearchParams.
    const pair = formPair(key, String(value));
    qs += qs ? `&${pair}` : `?${pair}`;
  }
  return `${base}${path}${qs}`;
}

/**
 * A root-relative path that URL resolution leaves exactly as written: unreserved characters and
 * slashes only, not protocol-relative (`//host`), no `.` or `..` segment.
 */
const PLAIN_ROOT_PATH = /^\/(?!\/)[A-Za-z0-9\-._~/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The origins of the public bases seen (a handful per process), for `resolveOnBase`'s fast path. */
const origins = new Map<string, string>();
const MAX_ORIGINS = 64;

function originOfBase(base: string): string {
  let origin = origins.get(base);
  if (origin === undefined) {
    origin = new URL(`${base}/`).origin;
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(base, origin);
  }
  return origin;
}

/** Makes a URL returned by a host builder absolute against the public base (absolute ones pass). */
export function resolveOnBase(base: string, url: string): string {
  // A plain root-relative path (what page builders return) resolves to the base's origin plus the path.
  if (PLAIN_ROOT_PATH.test(url) && !DOT_SEGMENT.test(url)) return `${originOfBase(base)}${url}`;
  return new URL(url, `${base}/`).toString();
}
