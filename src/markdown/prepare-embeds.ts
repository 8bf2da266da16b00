/**
 * Embeds whose URL lives only in attributes, in the DOM pre-pass: a script-built embed (a Gist's
 * `<script src>`), Squarespace's blocks (`data-block-json`, `data-html`), Confluence's storage format
 * (`ri:url`). Each becomes a link to the page it shows, labelled with its title and provider; a URL of
 * any protocol but http(s) is dropped with its element.
 */
import { absoluteUrl, MEDIA_PROTOCOLS } from './markdown-urls.js';
import { createElement, type DomElement } from './html-dom.js';
import { embedLabel, replaceByLink } from './prepare-media.js';

/** Attributes longer than this are not read for an embed (a JSON or HTML attribute is a few KiB). */
const MAX_EMBED_ATTRIBUTE = 64 * 1024;

/** Script embeds by the page their script URL stands for. */
const SCRIPT_EMBEDS: { host: string; page: (url: URL) => string | undefined; provider: string }[] = [
  { host: 'gist.github.com', page: (url) => (/^\/[\w.-]+\/\w+\.js$/.test(url.pathname) ? `${url.origin}${url.pathname.slice(0, -3)}` : undefined), provider: 'GitHub Gist' },
];

/** A `<script src>` of a known embed (a Gist): a link to the page; any other script goes. */
export function prepareScript(script: DomElement): void {
  const href = absoluteUrl(script.getAttribute('src'), MEDIA_PROTOCOLS);
  const url = href ? new URL(href) : undefined;
  const embed = url && SCRIPT_EMBEDS.find((e) => e.host === url.hostname);
  const page = embed && url && embed.page(url);
  if (page) replaceByLink(script, page, embedLabel(page, undefined, embed.provider));
  else script.remove();
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * A Squarespace block whose `data-block-json` is an oEmbed result (`url` with `html`, `providerName` or
 * `resolvedBy`): a link to its URL. False when it is not one (or not JSON).
 */
export function prepareBlockJson(el: DomElement, raw: string): boolean {
  if (raw.length > MAX_EMBED_ATTRIBUTE) return false;
  const json = parseJson(raw) as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object' || typeof json.url !== 'string') return false;
  if (!('html' in json || 'providerName' in json || 'resolvedBy' in json)) return false;
  const href = absoluteUrl(json.url, MEDIA_PROTOCOLS);
  if (!href) return false;
  replaceByLink(el, href, embedLabel(href, json.title, json.providerName));
  return true;
}

const IFRAME_SRC = /<iframe\s[^>]*?\bsrc\s*=\s*["']([^"'<>]{1,2048})["']/i;
const IFRAME_TITLE = /<iframe\s[^>]*?\btitle\s*=\s*["']([^"'<>]{1,300})["']/i;

/** An element whose embed is built by a script from `data-html` (Squarespace's video wrapper): a link to its iframe's page. */
export function prepareDataHtml(el: DomElement, raw: string): boolean {
  if (raw.length > MAX_EMBED_ATTRIBUTE) return false;
  const href = absoluteUrl(IFRAME_SRC.exec(raw)?.[1]?.replace(/&amp;/g, '&'), MEDIA_PROTOCOLS);
  if (!href) return false;
  replaceByLink(el, href, embedLabel(href, IFRAME_TITLE.exec(raw)?.[1], el.getAttribute('data-provider-name')));
  return true;
}

/** Confluence's `<ri:url ri:value>`: the image of an `<ac:image>` it is in, else a link. */
export function prepareResourceUrl(ri: DomElement): void {
  const href = absoluteUrl(ri.getAttribute('ri:value'), MEDIA_PROTOCOLS);
  const image = ri.parentNode?.nodeName === 'AC:IMAGE' ? ri.parentNode : undefined;
  if (!href) (image ?? ri).remove();
  else if (image) image.replaceWith(createElement(ri.ownerDocument, 'img', [], { src: href, alt: image.getAttribute('ac:alt') ?? '' }));
  else replaceByLink(ri, href, embedLabel(href));
}
