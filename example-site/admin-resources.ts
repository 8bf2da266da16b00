import express, { type Request, type Response, type Router } from 'express';
import type { Kysely } from 'kysely';
import { ContentPushError, localize, type ContentWriter, type Database } from '../src/index.js';
import { csrfToken, isAdmin, validCsrf, type SessionConfig } from './session.js';

/**
 * The example CMS's own editor: a list of resources and an edit form (title, summary, body per
 * language, published, visibility, publication window, noindex, category), saved through the
 * plugin's push API (`agent.content.put`). Server-rendered forms with
 * a session-bound CSRF token; no JavaScript. Anyone but the administrator gets the site's 404.
 */
export function createResourceAdmin(o: {
  db: Kysely<Database>;
  /** The plugin's push API (`agent.content`): every save goes through it. */
  content: ContentWriter;
  session: SessionConfig;
  languages: readonly string[];
  render: (req: Request, res: Response, view: string, vars: Record<string, unknown>) => Promise<void>;
}): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 40 });
  router.use((req, _res, next) => next(isAdmin(req, o.session) ? undefined : 'router'));

  const categories = () =>
    o.db
      .selectFrom('category as c')
      .innerJoin('rsc as r', 'r.id', 'c.id')
      .select(['c.id', 'r.name'])
      .orderBy('r.name')
      .execute();

  router.get('/', async (req, res, next) => {
    try {
      const rows = await o.db
        .selectFrom('rsc as r')
        .leftJoin('rsc as cat', 'cat.id', 'r.category_id')
        .select(['r.id', 'r.name', 'r.title', 'r.is_published', 'r.visibility', 'r.seo_noindex', 'cat.name as category'])
        .orderBy('r.id')
        .limit(100)
        .execute();
      await o.render(req, res, 'admin-resources.njk', {
        pageTitle: 'Resources',
        resources: rows.map((r) => ({ ...r, title: localize(r.title, 'en') || `#${r.id}` })),
      });
    } catch (error) {
      next(error);
    }
  });

  const load = (id: number) => o.db.selectFrom('rsc').selectAll().where('id', '=', id).executeTakeFirst();
  const idParam = (req: Request) => {
    const id = Number(req.params.id);
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  };
  const local = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 16) : '');

  const editPage = async (req: Request, res: Response, id: number, problem?: string) => {
    const row = await load(id);
    if (!row) return false;
    await o.render(req, res, 'admin-resource-edit.njk', {
      pageTitle: `Edit ${row.name ?? row.id}`,
      r: {
        id: row.id,
        name: row.name,
        categoryId: row.category_id,
        published: row.is_published,
        visibility: row.visibility,
        start: local(row.publication_start),
        end: local(row.publication_end),
        noindex: row.seo_noindex,
        text: o.languages.map((l) => ({ lang: l, title: row.title[l] ?? '', summary: row.summary[l] ?? '', body: row.body[l] ?? '' })),
      },
      categories: await categories(),
      csrf: csrfToken(req, o.session),
      problem,
    });
    return true;
  };

  router.get('/:id', async (req, res, next) => {
    try {
      const id = idParam(req);
      if (id === undefined || !(await editPage(req, res, id))) return next('router');
    } catch (error) {
      next(error);
    }
  });

  router.post('/:id', form, async (req, res, next) => {
    try {
      const id = idParam(req);
      if (id === undefined || !(await load(id))) return next('router');
      const body = req.body as Record<string, string | undefined>;
      if (!validCsrf(req, o.session, body._csrf)) {
        res.status(403).type('text').send('Forbidden: the form carries no valid CSRF token; reload the edit page and submit again.');
        return;
      }
      const start = new Date(`${body.publication_start ?? ''}Z`);
      const end = body.publication_end ? new Date(`${body.publication_end}Z`) : null;
      const categoryId = Number(body.category_id);
      const visibility = (body.visibility ?? '').trim();
      const cats = await categories();
      const problem = Number.isNaN(start.getTime())
        ? 'publication start: expected a date and time'
        : end && Number.isNaN(end.getTime())
          ? 'publication end: expected a date and time, or nothing'
          : !cats.some((c) => c.id === categoryId)
            ? 'category: unknown category'
            : !/^[a-z][a-z0-9_-]{0,31}$/.test(visibility)
              ? 'visibility: expected "public" or another lower-case word'
              : undefined;
      if (problem) {
        res.status(400);
        await editPage(req, res, id, problem);
        return;
      }
      const per = (field: string) => {
        const out: Record<string, string> = {};
        for (const l of o.languages) {
          const v = (body[`${field}_${l}`] ?? '').trim();
          if (v) out[l] = v;
        }
        return out;
      };
      const title = per('title');
      const row = (await load(id))!;
      // The CMS's save path writes through the plugin's push API (one validated transaction); `put`
      // replaces the whole resource, so the fields this form does not edit are passed on as stored.
      const saved = await o.content
        .put({
          id,
          name: row.name,
          category: categoryId,
          title,
          summary: per('summary'),
          body: per('body'),
          language: o.languages.filter((l) => title[l] || per('body')[l]),
          blocks: row.blocks,
          props: row.props,
          is_published: body.is_published === 'on',
          visibility,
          publication_start: start,
          publication_end: end,
          created: row.created,
          seo_noindex: body.seo_noindex === 'on',
          uri: row.uri,
          license: row.license,
          attribution: row.attribution,
          page_url: row.page_url,
        })
        .then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof ContentPushError) return error.message.replace(/^express-agent-discovery: content\.put: /, '');
            throw error;
          },
        );
      if (saved !== undefined) {
        res.status(400);
        await editPage(req, res, id, saved);
        return;
      }
      res.redirect(303, `${req.baseUrl}/${id}?saved=1`);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
