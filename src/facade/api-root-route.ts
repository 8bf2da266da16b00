import type { Request, Response, Router } from 'express';
import { effectiveSettings } from '../settings/effective-settings.js';
import { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { HttpError } from '../http/errors.js';
import type { OperationSpec } from '../http/operations.js';
import { API_ROBOTS, sendErrorEnvelope } from '../http/representation.js';
import { API_READ } from '../http/route.js';
import { absoluteUrl } from '../http/urls.js';
import { describeApi } from '../representations/api-description.js';
import { facadeRoute } from './facade-route.js';

/** The result of `GET /api/agent`. */
const apiRootResult = z.object({
  title: z.string(),
  description: z.string(),
  openapi_url: z.string().describe('The OpenAPI 3.1 description of every operation.'),
  api_help_url: z.string().describe('The human-readable API help page.'),
  operations: z
    .array(z.object({ method: z.literal('GET'), path: z.string().describe('OpenAPI path template.'), summary: z.string() }))
    .describe('Every operation; each also answers HEAD.'),
});

type ListedOperation = z.input<typeof apiRootResult>['operations'][number];

/**
 * `GET /api/agent`: the root document the API catalog identifies the API by (cached like the facade
 * reads): the API's title and description, where its descriptions are, and every operation.
 */
export function apiRootRoute(options: ResolvedOptions, operations: () => readonly OperationSpec[]) {
  let listed: ListedOperation[] | undefined;
  return facadeRoute({
    path: PATHS.apiRoot,
    params: undefined,
    query: z.object({}).strict(),
    response: { kind: 'envelope', result: apiRootResult },
    policy: API_READ,
    doc: {
      operationId: 'readApiRoot',
      summary: 'The API root document',
      description: "The API's title and description, the URLs of its OpenAPI description and help page, and its operations.",
      tags: ['api'],
      errors: [400],
    },
    async handler({ ctx, call }) {
      listed ??= operations().map((op) => ({ method: 'GET' as const, path: op.path, summary: op.summary }));
      return {
        ...describeApi({ title: options.siteTitle, description: (await effectiveSettings(ctx)).description }),
        openapi_url: absoluteUrl(call.base, PATHS.openapi.url()),
        api_help_url: absoluteUrl(call.base, PATHS.apiHelp.url()),
        operations: listed,
      };
    },
  });
}

/**
 * Mounts, after every other route of the router, the JSON 404 for any other path under
 * `/api/agent/`: a typo, a trailing slash or a missing id gets the error envelope naming the
 * operations, never the host's HTML 404.
 */
export function mountUnknownApiPath(router: Router, operations: () => readonly OperationSpec[]): void {
  let message: string | undefined;
  const root = PATHS.apiRoot.template;
  router.use(root, function unknownApiPath(_req: Request, res: Response) {
    message ??=
      'no operation at this path; the operations are ' +
      operations()
        .filter((op) => op.path.startsWith(root))
        .map((op) => `GET ${op.path}`)
        .join(', ') +
      ` (see ${root} and ${PATHS.openapi.template})`;
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    sendErrorEnvelope(res, new HttpError(404, 'not_found', message));
  });
}
