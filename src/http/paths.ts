/** Every path the plugin answers, defined once. */
export const PATHS = {
  apiHelp: '/api-help',
  openapi: '/openapi.json',
  apiCatalog: '/.well-known/api-catalog',
  llmsTxt: '/llms.txt',
  ard: '/.well-known/ard.json',
  apiRoot: '/api/agent',
  /** The legacy (ARD v0.9) location of the same manifest. */
  aiCatalog: '/.well-known/ai-catalog.json',
  mcpServerCard: '/.well-known/mcp/server-card.json',
  search: '/api/agent/search',
  resource: (id: number | string) => `/api/agent/resource/${encodeURIComponent(String(id))}`,
  related: (id: number | string) => `/api/agent/related/${encodeURIComponent(String(id))}`,
  schema: '/api/agent/schema',
  markdown: (id: number | string) => `/agent/resource/${encodeURIComponent(String(id))}/markdown`,
  entity: (id: number | string) => `/id/${encodeURIComponent(String(id))}`,
} as const;

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
