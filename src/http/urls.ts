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
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '([^/?#]+)')}$`);
  return Object.freeze({
    template,
    expressPath: template.replace(/\{(\w+)\}/g, ':$1'),
    params,
    url(...values: [Record<K, number | string>] | []): string {
      const given = values[0];
      return given ? template.replace(/\{(\w+)\}/g, (_, name: K) => encodeURIComponent(String(given[name]))) : template;
    },
    match(path: string): Record<K, string> | undefined {
      const found = pattern.exec(path);
      return found ? (Object.fromEntries(params.map((name, i) => [name, found[i + 1]!])) as Record<K, string>) : undefined;
    },
  });
}

/** An absolute URL on the public base, with an optional query. */
export function absoluteUrl(base: string, path: string, query?: Record<string, string | number | undefined>): string {
  const entries = Object.entries(query ?? {}).filter((e): e is [string, string | number] => e[1] !== undefined);
  const qs = entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
  return `${base}${path}${qs}`;
}

/** Makes a URL returned by a host builder absolute against the public base (absolute ones pass). */
export function resolveOnBase(base: string, url: string): string {
  return new URL(url, `${base}/`).toString();
}
