import type { Request, Response, Router } from 'express';
import { effectiveSettings } from '../settings/effective-settings.js';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { HttpError } from './errors.js';
import type { OperationSpec } from './operations.js';
import { parseQuery } from './parameters.js';
import { PATHS, absoluteUrl } from './paths.js';
import { API_ROBOTS, sendErrorEnvelope } from './representation.js';

/** What the API is called and how it is described: the root document and OpenAPI's `info` say the same. */
export function describeApi(site: { title: string; description?: string | undefined }): { title: string; description: string } {
  return {
    title: `${site.title} content API`,
    description:
      (site.description ? `${site.description}\n\n` : '') +
      'Read-only, anonymous access to the public content of the site. No API key. Every read is evaluated as an anonymous visitor.',
  };
}

/** The result of `GET /api/agent`. */
export const apiRootResult = z.object({
  title: z.string(),
  description: z.string(),
  openapi_url: z.string().describe('The OpenAPI 3.1 description of every operation.'),
  api_help_url: z.string().describe('The human-readable API help page.'),
  operations: z
    .array(z.object({ method: z.literal('GET'), path: z.string().describe('OpenAPI path template.'), summary: z.string() }))
    .describe('Every operation; each also answers HEAD.'),
});

const rootQuery = z.object({}).strict();

/** The API root's own entry in the operation registry. */
export function apiRootOperations(): OperationSpec[] {
  return [
    {
      operationId: 'readApiRoot',
      path: PATHS.apiRoot,
      summary: 'The API root document',
      description: "The API's title and description, the URLs of its OpenAPI description and help page, and its operations.",
      tags: ['api'],
      query: rootQuery,
      response: { kind: 'envelope', result: apiRootResult },
      errors: [400],
    },
  ];
}

/**
 * Mounts `GET /api/agent` (the root document the API catalog identifies the API by; cached like the
 * facade reads) and, after every other route of the router, the JSON 404 for any other path under
 * `/api/agent/`: a typo, a trailing slash or a missing id gets the error envelope naming the
 * operations, never the host's HTML 404. Call it after the facade routes are mounted.
 */
export function mountApiRoot(router: Router, ctx: AgentContext, operations: () => OperationSpec[]): void {
  let listed: z.output<typeof apiRootResult>['operations'] | undefined;
  const list = () => (listed ??= operations().map((op) => ({ method: 'GET' as const, path: op.path, summary: op.summary })));

  router.get(
    PATHS.apiRoot,
    agentRoute(ctx, apiRootResult, async ({ req, base }) => {
      parseQuery(req, rootQuery);
      return {
        kind: 'json',
        result: {
          ...describeApi({ title: ctx.options.siteTitle, description: (await effectiveSettings(ctx)).description }),
          openapi_url: absoluteUrl(base, PATHS.openapi),
          api_help_url: absoluteUrl(base, PATHS.apiHelp),
          operations: list(),
        },
      };
    }),
  );
  router.all(PATHS.apiRoot, methodNotAllowed);

  let message: string | undefined;
  router.use(PATHS.apiRoot, function unknownApiPath(_req: Request, res: Response) {
    message ??=
      'no operation at this path; the operations are ' +
      list()
        .filter((op) => op.path.startsWith(PATHS.apiRoot))
        .map((op) => `${op.method} ${op.path}`)
        .join(', ') +
      ` (see ${PATHS.apiRoot} and ${PATHS.openapi})`;
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    sendErrorEnvelope(res, new HttpError(404, 'not_found', message));
  });
}
