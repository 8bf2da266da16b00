/** The protocol revision this client speaks: stateless, no `initialize`, an envelope on every request. */
export const MODERN_REVISION = '2026-07-28';

/** A JSON-RPC error answer, as thrown by {@link ModernMcpClient}. */
export class ModernMcpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
    readonly status: number,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}

/** One HTTP exchange: status, headers and the parsed JSON-RPC answer. */
export interface ModernExchange {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/**
 * A 2026-07-28 client over raw HTTP, written from the revision's wire rules: every request carries
 * `_meta` with the protocol version, client capabilities and client info, and the
 * `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call and resources/read) `Mcp-Name` headers.
 * Its methods have the names and shapes of the SDK client's, so the same walks run over both.
 */
export class ModernMcpClient {
  private id = 0;
  constructor(
    readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** Sends one request exactly as described; `extraHeaders` override the computed ones. */
  async exchange(method: string, params: Record<string, unknown> = {}, name?: string, extraHeaders: Record<string, string> = {}): Promise<ModernExchange> {
    const body = {
      jsonrpc: '2.0',
      id: ++this.id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-07-28-test-client', version: '1.0.0' },
        },
      },
    };
    const res = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_REVISION,
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
        ...this.headers,
        ...extraHeaders,
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  }

  /** The result of one request; a JSON-RPC error is thrown as {@link ModernMcpError}. */
  async request(method: string, params: Record<string, unknown> = {}, name?: string): Promise<Record<string, any>> {
    const { status, body } = await this.exchange(method, params, name);
    if (body.error) throw new ModernMcpError(body.error.code, body.error.message, body.error.data, status);
    if (status !== 200 || body.result === undefined) throw new Error(`${method}: HTTP ${status} ${JSON.stringify(body)}`);
    return body.result;
  }

  discover() {
    return this.request('server/discover');
  }
  listTools() {
    return this.request('tools/list') as Promise<{ tools: Record<string, any>[] }>;
  }
  callTool({ name, arguments: args }: { name: string; arguments?: Record<string, unknown> }) {
    return this.request('tools/call', { name, arguments: args ?? {} }, name);
  }
  listResources(params: { cursor?: string } = {}) {
    return this.request('resources/list', params) as Promise<{ resources: { uri: string }[]; nextCursor?: string }>;
  }
  listResourceTemplates() {
    return this.request('resources/templates/list') as Promise<{ resourceTemplates: Record<string, any>[] }>;
  }
  readResource({ uri }: { uri: string }) {
    return this.request('resources/read', { uri }, uri) as Promise<{ contents: Record<string, any>[]; resultType?: string }>;
  }
}
