import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AgentContext } from '../context.js';
import { runSiteChecks, siteCheckUsageError, SiteUnreachableError, type CheckStatus, type HiddenRef } from '../check/index.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { reportUnexpected } from '../http/route-errors.js';
import { effectiveSettings } from '../settings/effective-settings.js';
import { writeStoredSettings } from '../settings/settings-store.js';
import { SETTING_LIMITS, validateSettings } from '../settings/settings-schema.js';
import { policyChanges, presetText, previewPolicy, readPolicyText, recordPolicyChange } from './policy-page.js';
import { POLICY_PRESETS } from '../policy/agent-policy.js';
import { createCsrfGuard, CSRF_FIELD } from './csrf.js';
import { inspectResource, resolveInspectTarget } from './inspector.js';
import { listResources, MAX_RESOURCE_LIST_PAGE, MAX_RESOURCE_LIST_TEXT } from './resource-list.js';
import { documentStatuses, newestAsAgentsSeeThem, resourceCounts, settingRows } from './overview.js';
import { inProcessProbe, networkProbe } from './site-probe.js';
import { formFields, formValues, readSettingsForm } from './settings-form.js';
import { PLANS_PAGE, plansPageVars } from './plan-doctor-section.js';
import { agentsPageVars, askedRange, trafficReportOf } from './agents-page.js';
import { skipTraffic } from '../traffic/traffic-mark.js';
import { DEFAULT_ANALYZE_TIMEOUT_MS, diagnosePlans } from '../content/plan-doctor.js';
import { readAccessNotices } from '../content/access-notices.js';

/** The admin pages' templates (overridable like every template of the plugin). */
const ADMIN_TEMPLATES = {
  overview: 'agent_admin_overview.njk',
  resource: 'agent_admin_resource.njk',
  verify: 'agent_admin_verify.njk',
  settings: 'agent_admin_settings.njk',
  agents: 'agent_admin_agents.njk',
  policy: 'agent_admin_policy.njk',
  message: 'agent_admin_message.njk',
  stylesheet: 'agent_admin.css',
} as const;

/** The admin pages' icon (relative to the router's mount path), and the icon: a plain square. */
const ADMIN_ICON_PATH = '/agent-admin-icon.svg';
const ADMIN_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f5fae"/></svg>';

/** Where the router serves the admin stylesheet (relative to its mount path). */
const ADMIN_STYLESHEET_PATH = '/agent-admin.css';

/**
 * The admin pages' Content-Security-Policy: no script at all, styles only from the admin's own
 * stylesheet (same origin), forms posting only to this site, never framed.
 */
const ADMIN_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The largest admin form body read; a bigger one is refused before it is parsed. */
const MAX_ADMIN_FORM_BYTES = 4 * 1024 * 1024;

/** Express 4 hosts do not catch rejected promises: every async handler passes its error on itself. */
const handle = (fn: (req: Request, res: Response) => Promise<unknown> | void) =>
  function adminPage(req: Request, res: Response, next: NextFunction) {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next);
  };

class AdminError extends Error {
  constructor(readonly status: number, readonly title: string, message: string) {
    super(message);
  }
}

/** What every admin page handler shares: the context, the CSRF guard, the public base and the renderer. */
interface AdminPages {
  readonly ctx: AgentContext;
  baseOf(req: Request): string;
  /** Renders a template by name, or one given as its source (`{ source }`). */
  render(req: Request, res: Response, template: string | { readonly source: string }, vars: Record<string, unknown>, status?: number): void;
  checkCsrf(req: Request): void;
}

/**
 * The plugin's admin pages, for the host to mount under its own admin area
 * (`app.use('/admin/agent', agent.adminRouter)`). Every request is first put to the `isAdmin` hook:
 * for anyone else the router does nothing and the host's own 404 answers, exactly as for a path that
 * does not exist. Pages are server-rendered from the plugin's templates and work without JavaScript;
 * every form carries a CSRF token (see `createCsrfGuard`).
 */
export function createAdminRouter(ctx: AgentContext): Router {
  const router = express.Router();
  const pages = adminPages(ctx);
  const form = express.urlencoded({ extended: false, limit: MAX_ADMIN_FORM_BYTES, parameterLimit: 20 });
  router.use(adminOnly(ctx));
  router.get(ADMIN_STYLESHEET_PATH, adminStylesheet(ctx));
  // The pages name their own icon, so the owner's browser never asks the site's /favicon.ico from them (a request
  // the agent traffic would count as the site's).
  router.get(ADMIN_ICON_PATH, (_req, res) => void res.type('image/svg+xml').set('Cache-Control', 'max-age=86400').send(ADMIN_ICON));
  router.get('/', handle(overviewPage(pages)));
  router.get('/resource', handle(inspectorPage(pages)));
  router.get('/verify', handle((req, res) => pages.render(req, res, ADMIN_TEMPLATES.verify, { page: 'verify', target: `${pages.baseOf(req)}/` })));
  router.post('/verify', form, handle(verifyAction(pages)));
  router.get('/settings', handle(settingsPage(pages)));
  router.post('/settings', form, handle(settingsAction(pages)));
  router.get('/plans', handle(plansPage(pages)));
  router.get('/agents', handle(agentsPage(pages)));
  router.get('/policy', handle(policyPage(pages)));
  router.post('/policy', form, handle(policyAction(pages)));
  router.get('/traffic.json', handle(trafficJson(pages)));
  for (const path of ['/', '/resource', '/verify', '/settings', '/plans', '/agents', '/policy', '/traffic.json']) {
    router.all(path, (req, res) => {
      const allow = path === '/verify' || path === '/settings' || path === '/policy' ? 'GET, HEAD, POST' : 'GET, HEAD';
      res.set('Allow', allow);
      pages.render(req, res, ADMIN_TEMPLATES.message, { title: 'Method not allowed', message: `${req.method} is not allowed here (${allow}).` }, 405);
    });
  }
  router.use(adminError(pages));
  return router;
}

/** Lets administrators through (with the admin pages' security headers); everyone else gets the host's 404. */
function adminOnly(ctx: AgentContext) {
  return async function adminOnly(req: Request, res: Response, next: NextFunction) {
    let admin = false;
    try {
      admin = (await ctx.options.isAdmin(req)) === true;
    } catch (error) {
      reportUnexpected(ctx, req, error);
    }
    if (!admin) return next('router');
    markPluginResponse(res);
    skipTraffic(req);
    res.set({
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex, nofollow',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': ADMIN_CSP,
      'Referrer-Policy': 'same-origin',
    });
    next();
  };
}

function adminPages(ctx: AgentContext): AdminPages {
  const csrf = createCsrfGuard(ctx.options.adminSecret);
  const baseOf = (req: Request): string => {
    try {
      return ctx.baseUrl(req);
    } catch {
      throw new AdminError(400, 'Unusable host', 'The request\'s Host cannot be used to build public URLs; configure the baseUrl option.');
    }
  };
  return {
    ctx,
    baseOf,
    render(req, res, template, vars, status = 200) {
      const base = baseOf(req);
      const admin = {
        path: req.baseUrl,
        siteTitle: ctx.options.siteTitle,
        siteUrl: `${base}/`,
        links: ctx.options.adminLinks,
        csrfField: CSRF_FIELD,
        csrfToken: csrf.token(req, res),
        documents: {
          apiHelp: absoluteUrl(base, PATHS.apiHelp.url()),
          llmsTxt: absoluteUrl(base, PATHS.llmsTxt.url()),
          openapi: absoluteUrl(base, PATHS.openapi.url()),
          apiCatalog: absoluteUrl(base, PATHS.apiCatalog.url()),
          ard: absoluteUrl(base, PATHS.ard.url()),
        },
      };
      const context = { admin, ...vars };
      const html = typeof template === 'string' ? ctx.templates.render(template, context) : ctx.templates.renderString(template.source, context);
      res.status(status).type('html').send(html);
    },
    checkCsrf(req) {
      const refusal = csrf.refusal(req, (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD]);
      if (refusal) throw new AdminError(403, 'Form refused', `This form was refused: ${refusal}. Reload the admin page and submit the form again.`);
    },
  };
}

/** The admin stylesheet (a template, so a site can override it); cached briefly by the admin's browser only. */
function adminStylesheet(ctx: AgentContext) {
  return function adminStylesheet(_req: Request, res: Response) {
    res.set('Cache-Control', 'private, max-age=300');
    res.type('css').send(ctx.templates.render(ADMIN_TEMPLATES.stylesheet, {}));
  };
}

function overviewPage({ ctx, baseOf, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const base = baseOf(req);
    const settings = await effectiveSettings(ctx);
    const probe = ctx.options.baseUrl ? networkProbe(base) : inProcessProbe(req, base);
    const [documents, counts, newest] = await Promise.all([
      documentStatuses(ctx, base, probe),
      resourceCounts(ctx, settings.noindex),
      newestAsAgentsSeeThem(ctx, base, settings.noindex),
    ]);
    render(req, res, ADMIN_TEMPLATES.overview, { page: 'overview', settings: settingRows(settings), table: settings.table, documents, checkedVia: probe.via, counts, newest, base });
  };
}

function inspectorPage({ ctx, baseOf, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const query = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).trim() : '');
    const raw = query('ref');
    const asked = query('language');
    const base = baseOf(req);
    const settings = await effectiveSettings(ctx);
    const page = { page: 'resource', ref: raw, languages: ctx.options.languages };
    if (!raw) {
      const text = query('text').slice(0, MAX_RESOURCE_LIST_TEXT);
      const number = Math.min(Math.max(Number.parseInt(query('page'), 10) || 1, 1), MAX_RESOURCE_LIST_PAGE);
      return render(req, res, ADMIN_TEMPLATES.resource, { ...page, list: await listResources(ctx, base, settings.noindex, text, number) });
    }
    const target = await resolveInspectTarget(ctx, base, raw);
    if ('problem' in target) return render(req, res, ADMIN_TEMPLATES.resource, { ...page, problem: target.problem }, target.status);
    const language = ctx.options.languages.includes(asked) ? asked : (target.language ?? ctx.options.defaultLanguage);
    const inspection = await inspectResource(ctx, req, base, target.ref, language, settings);
    if (!inspection) return render(req, res, ADMIN_TEMPLATES.resource, { ...page, problem: `There is no resource with the id or name "${raw}".` }, 404);
    render(req, res, ADMIN_TEMPLATES.resource, { ...page, r: inspection, note: target.note });
  };
}

/** What agents did with the site over a range (`?since=24h|7d|30d|90d`). */
function agentsPage({ ctx, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const since = askedRange(req.query.since);
    if (!since) throw new AdminError(400, 'Bad range', 'The range (since) must be 24h, 7d, 30d or 90d.');
    render(req, res, ADMIN_TEMPLATES.agents, agentsPageVars(ctx, await trafficReportOf(ctx, since), since));
  };
}

/** The Agents page's data as JSON (signed-in only, like every admin page; includes counts not yet flushed). */
function trafficJson({ ctx }: AdminPages) {
  return async (req: Request, res: Response) => {
    const since = askedRange(req.query.since);
    if (!since) return void res.status(400).json({ status: 'error', error: { code: 'bad_parameter', parameter: 'since', message: 'since must be 24h, 7d, 30d or 90d' } });
    const report = await trafficReportOf(ctx, since);
    if (!report) return void res.status(404).json({ status: 'error', error: { code: 'not_counted', message: 'agent traffic is not counted: the traffic option is off' } });
    res.json({ status: 'ok', result: report });
  };
}

/** The plan doctor's report, run now (`?analyze=1`: with EXPLAIN ANALYZE). */
function plansPage({ ctx, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const report = await diagnosePlans(ctx.db, { analyze: req.query.analyze === '1', timeoutMs: DEFAULT_ANALYZE_TIMEOUT_MS });
    const notices = await readAccessNotices(ctx.db);
    render(req, res, PLANS_PAGE, { page: 'plans', ...plansPageVars(report, DEFAULT_ANALYZE_TIMEOUT_MS, notices) });
  };
}

/** The time of a Verify run, for people: `1 December 2026, 11:12:05 UTC`. */
const verifyTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' });

/** Runs the checks against the site's public base (a page of it when given) and shows the report with what was entered. */
function verifyAction({ baseOf, render, checkCsrf }: AdminPages) {
  return async (req: Request, res: Response) => {
    checkCsrf(req);
    const body = req.body as Record<string, unknown>;
    const target = `${baseOf(req)}/`;
    const entered = Object.fromEntries((['page', 'private', 'noindex'] as const).map((k) => [k, typeof body[k] === 'string' ? (body[k] as string).trim() : '']));
    const hidden: HiddenRef[] = (['private', 'noindex'] as const).flatMap((kind) => (entered[kind] ? [{ kind, ref: entered[kind] }] : []));
    const options = { hidden, ...(entered.page ? { page: entered.page } : {}) };
    const vars = { page: 'verify', target, entered };
    const problem = siteCheckUsageError(target, options);
    if (problem) return render(req, res, ADMIN_TEMPLATES.verify, { ...vars, problem: `The checks cannot run: ${problem}.` }, 400);
    try {
      const report = await runSiteChecks(target, options);
      const count = (status: CheckStatus) => report.checks.filter((c) => c.status === status).length;
      const counts = { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), notApplicable: count('not_applicable') };
      render(req, res, ADMIN_TEMPLATES.verify, { ...vars, report, counts, ranAt: verifyTime.format(new Date(report.ranAt)) });
    } catch (error) {
      if (!(error instanceof SiteUnreachableError)) throw error;
      render(req, res, ADMIN_TEMPLATES.verify, { ...vars, problem: `The checks cannot run: ${error.message}.` }, 502);
    }
  };
}

function settingsPage({ ctx, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const settings = await effectiveSettings(ctx);
    render(req, res, ADMIN_TEMPLATES.settings, settingsVars(settings, formValues(settings), req.query.saved === '1'));
  };
}

function settingsAction({ ctx, render, checkCsrf }: AdminPages) {
  return async (req: Request, res: Response) => {
    checkCsrf(req);
    const settings = await effectiveSettings(ctx);
    if (!settings.table) throw new AdminError(409, 'Settings are not stored', 'This database has no settings table: run the plugin\'s migrations (npx express-agent-discovery migrate).');
    const read = readSettingsForm(req.body as Record<string, unknown>, settings);
    if (!read.ok) return render(req, res, ADMIN_TEMPLATES.settings, { ...settingsVars(settings, read.form, false), problems: read.problems }, 400);
    await writeStoredSettings(ctx.db, read.value);
    // This instance follows the switch, the crawler rules and the policy at once; the others at their next tick.
    await ctx.traffic?.refresh();
    await ctx.agents?.refresh();
    res.redirect(303, `${req.baseUrl}/settings?saved=1`);
  };
}

/** The Policy page's variables: the presets, the changes, where the policy in force comes from. */
async function policyVars(ctx: AgentContext, text: string, extra: Record<string, unknown>) {
  const settings = await effectiveSettings(ctx);
  const presets = Object.entries(POLICY_PRESETS).map(([name, p]) => ({ name, label: p.label }));
  const changes = settings.table ? await policyChanges(ctx.db).catch(() => []) : [];
  return { page: 'policy', text, presets, changes, source: settings.source.agentPolicy, ...extra };
}

function policyPage({ ctx, render }: AdminPages) {
  return async (req: Request, res: Response) => {
    const settings = await effectiveSettings(ctx);
    const text = JSON.stringify(JSON.parse(settings.agentPolicy), null, 2);
    render(req, res, ADMIN_TEMPLATES.policy, await policyVars(ctx, text, { saved: req.query.saved === '1' }));
  };
}

/** A preset fills the form; Preview decides the last 7 days of traffic with the typed policy; Save stores and records it. */
function policyAction({ ctx, render, checkCsrf }: AdminPages) {
  return async (req: Request, res: Response) => {
    checkCsrf(req);
    const body = req.body as Record<string, unknown>;
    const preset = presetText(body.preset);
    if (preset !== undefined) {
      const read = readPolicyText(preset);
      const preview = read.ok ? await previewPolicy(ctx.db, read.policy, ctx.traffic?.pending().batch.requests) : undefined;
      return render(req, res, ADMIN_TEMPLATES.policy, await policyVars(ctx, preset, { preview }));
    }
    const read = readPolicyText(body.policy);
    if (!read.ok) return render(req, res, ADMIN_TEMPLATES.policy, await policyVars(ctx, read.text, { problem: `${read.message} The policy in force is unchanged.` }), 400);
    if (body.action !== 'save') return render(req, res, ADMIN_TEMPLATES.policy, await policyVars(ctx, read.text, { preview: await previewPolicy(ctx.db, read.policy, ctx.traffic?.pending().batch.requests) }));
    const settings = await effectiveSettings(ctx);
    if (!settings.table) throw new AdminError(409, 'Settings are not stored', 'This database has no settings table: run the plugin\'s migrations (npx express-agent-discovery migrate).');
    const valid = validateSettings({ ...settings.stored, agentPolicy: JSON.stringify(read.policy) });
    if (!valid.ok) return render(req, res, ADMIN_TEMPLATES.policy, await policyVars(ctx, read.text, { problem: valid.problems.map((p) => p.message).join(' ') }), 400);
    await writeStoredSettings(ctx.db, valid.value);
    await recordPolicyChange(ctx.db, read.policy);
    await ctx.agents?.refresh();
    res.redirect(303, `${req.baseUrl}/policy?saved=1`);
  };
}

/** Answers every admin failure as a page: the refusals with their message, anything else as a reported 500. */
function adminError({ ctx, render }: AdminPages) {
  return function adminError(error: unknown, req: Request, res: Response, _next: NextFunction) {
    const status = (error as { status?: unknown }).status;
    let answer: AdminError;
    if (error instanceof AdminError) answer = error;
    else if (status === 413) answer = new AdminError(413, 'Form too large', `The form is larger than ${MAX_ADMIN_FORM_BYTES / 1024 / 1024} MiB. The description may have at most ${SETTING_LIMITS.description} characters, the llms.txt notes ${SETTING_LIMITS.llmsNotes}.`);
    else if (typeof status === 'number' && status >= 400 && status < 500) answer = new AdminError(status, 'Bad request', 'The form could not be read.');
    else {
      reportUnexpected(ctx, req, error);
      answer = new AdminError(500, 'Internal error', 'The admin page failed; the error was reported through onError.');
    }
    if (res.headersSent) return;
    try {
      render(req, res, ADMIN_TEMPLATES.message, { title: answer.title, message: answer.message }, answer.status);
    } catch {
      res.status(answer.status).type('text').send(`${answer.title}: ${answer.message}`);
    }
  };
}

function settingsVars(settings: Awaited<ReturnType<typeof effectiveSettings>>, form: ReturnType<typeof formValues>, saved: boolean) {
  return { page: 'settings', settings: settingRows(settings), table: settings.table, form, fields: formFields(form), saved, limits: SETTING_LIMITS };
}
