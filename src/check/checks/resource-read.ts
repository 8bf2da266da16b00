import { checkName } from '../check-catalog.js';
import { ACCEPT, isObject, parseJson, short, type CheckContext } from '../context.js';
import { linksWith, readPage, type PageView, type SeenLink } from '../page-view.js';
import { describeResponse, mediaType, sameOrigin } from '../site-client.js';
import { fail, pass, skip, type CheckOutcome } from '../report.js';

const READ = checkName('resource-read');
const LANGUAGE = checkName('resource-language');
const FIX_READ =
  "The page's alternates must answer: the JSON alternate 200 with JSON, the Markdown alternate 200 with text/markdown, " +
  'both to anonymous clients and without a redirect.';
const FIX_LANGUAGE =
  "Advertise the alternates in the page's language: hreflang and ?language= equal to <html lang> " +
  '(agent.resourceLinks({ id, language }) or headLinks(req, id, { language })); the JSON read answers in that language.';

/** The JSON read of the page, kept for the language check. */
interface Read {
  result?: Record<string, unknown>;
  contentLanguage?: string;
}

const alternates = (view: PageView): SeenLink[] => [
  ...linksWith([...view.headerLinks, ...view.headLinks], 'alternate', 'application/json'),
  ...linksWith([...view.headerLinks, ...view.headLinks], 'alternate', 'text/markdown'),
];

/** The JSON and Markdown alternates of the page answer with JSON and Markdown. */
export async function checkResourceRead(ctx: CheckContext): Promise<{ result: CheckOutcome; read?: Read }> {
  const view = ctx.page?.view;
  if (!view) return { result: skip('resource-read', READ, 'no page to check') };
  const links = [...view.headerLinks, ...view.headLinks];
  const json = linksWith(links, 'alternate', 'application/json')[0];
  const markdown = linksWith(links, 'alternate', 'text/markdown')[0];
  if (!json || !markdown) return { result: fail('resource-read', READ, `the page advertises no ${json ? 'Markdown' : 'JSON'} alternate`, FIX_READ) };
  const problems: string[] = [];
  const res = await ctx.client.fetch(json.href, { accept: ACCEPT.json });
  let read: Read | undefined;
  if (res.error !== undefined || res.status !== 200) problems.push(`JSON ${short(json.href, ctx.origin)} ${describeResponse(res)}`);
  else {
    const body = parseJson(res.body);
    if (!/^application\/(?:[\w.-]+\+)?json$/.test(mediaType(res)) || body === undefined) problems.push(`JSON ${short(json.href, ctx.origin)} is not JSON (${mediaType(res)})`);
    else if (isObject(body) && body.status === 'error') problems.push(`JSON ${short(json.href, ctx.origin)} is an error envelope`);
    else {
      const result = isObject(body) && isObject(body.result) ? body.result : isObject(body) ? body : undefined;
      const contentLanguage = res.headers.get('content-language') ?? undefined;
      read = { ...(result ? { result } : {}), ...(contentLanguage ? { contentLanguage } : {}) };
    }
  }
  const md = await ctx.client.fetch(markdown.href, { accept: ACCEPT.markdown });
  if (md.error !== undefined || md.status !== 200) problems.push(`Markdown ${short(markdown.href, ctx.origin)} ${describeResponse(md)}`);
  else if (mediaType(md) !== 'text/markdown') problems.push(`Markdown ${short(markdown.href, ctx.origin)} is ${mediaType(md) || 'untyped'}`);
  if (problems.length) return { result: fail('resource-read', READ, problems.join('; '), FIX_READ), ...(read ? { read } : {}) };
  return {
    result: pass('resource-read', READ, `${short(json.href, ctx.origin)} (JSON), ${short(markdown.href, ctx.origin)} (Markdown)`),
    ...(read ? { read } : {}),
  };
}

/** The same language tag, or one a subtag refinement of the other (`en` and `en-GB`), case-insensitively. */
const sameLanguage = (a: string | undefined, b: string): boolean => {
  if (a === undefined) return false;
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x === y || x.startsWith(`${y}-`) || y.startsWith(`${x}-`);
};

/** Alternates of `view` that do not carry `language` (hreflang, and `language=` when the URL has one). */
function mislabelled(view: PageView, language: string): string[] {
  return alternates(view).flatMap((l) => {
    const param = new URL(l.href).searchParams.get('language');
    if (!sameLanguage(l.hreflang, language)) return [`${l.type ?? 'alternate'} has hreflang=${l.hreflang ?? '(none)'}`];
    if (param !== null && !sameLanguage(param, language)) return [`${l.type ?? 'alternate'} has language=${param}`];
    return [];
  });
}

/** The language the JSON read answered for, when it says. */
function readLanguage(read: Read): string | undefined {
  const r = read.result ?? {};
  if (r.is_fallback === true && typeof r.requested_language === 'string') return r.requested_language;
  if (typeof r.language === 'string') return r.language;
  return read.contentLanguage?.split(',')[0]?.trim();
}

/**
 * The page's alternates carry its language (`hreflang`, `?language=`), the JSON read answers in it,
 * and, when the read names the page in another language, that page's alternates carry that one.
 */
export async function checkLanguage(ctx: CheckContext, read: Read | undefined): Promise<CheckOutcome> {
  const view = ctx.page?.view;
  if (!view) return skip('resource-language', LANGUAGE, 'no page to check');
  const language = view.language;
  if (!language) return fail('resource-language', LANGUAGE, 'the page declares no language (<html lang> or Content-Language)', FIX_LANGUAGE);
  const problems = mislabelled(view, language).map((p) => `${language} page: ${p}`);
  const answered = read && readLanguage(read);
  if (answered !== undefined && !sameLanguage(answered, language)) problems.push(`the JSON read answers in ${answered}, the page is ${language}`);
  const checked = [language];
  const pageUrls = read?.result?.page_urls;
  const other = isObject(pageUrls) ? Object.entries(pageUrls).find(([lang, url]) => !sameLanguage(lang, language) && typeof url === 'string' && sameOrigin(url, ctx.origin)) : undefined;
  if (other) {
    const [lang, url] = other as [string, string];
    const res = await ctx.client.fetch(url, { accept: ACCEPT.fetcher });
    if (res.error !== undefined || res.status !== 200) problems.push(`the ${lang} page ${short(url, ctx.origin)} ${describeResponse(res)}`);
    else {
      const otherView = readPage(res);
      if (!alternates(otherView).length) problems.push(`the ${lang} page ${short(url, ctx.origin)} has no alternates`);
      problems.push(...mislabelled(otherView, lang).map((p) => `${lang} page: ${p}`));
      checked.push(lang);
    }
  }
  return problems.length
    ? fail('resource-language', LANGUAGE, problems.join('; '), FIX_LANGUAGE)
    : pass('resource-language', LANGUAGE, `alternates carry the page's language (${checked.join(', ')})`);
}
