/**
 * The media part of the DOM pre-pass: an image takes its real source (lazy loading, `srcset`,
 * `<picture>`, `<noscript>`), and video, audio, iframes and oEmbed placeholders become a link to the
 * media or page (their players' chrome is dropped), so that no media URL is lost.
 */
import { absoluteUrl, hostLabel, MEDIA_PROTOCOLS } from './markdown-urls.js';
import { classesOf, createElement, elementChildren, findElement, isElement, squashText, type DomElement } from './html-dom.js';

/** Attributes lazy-loading scripts keep the real source in, most specific first. */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-orig-file', 'data-full-url'];
const LAZY_SRCSET = ['data-srcset', 'data-lazy-srcset'];

/** The widest candidate of a `srcset` (by its `w` or `x` descriptor; the first when none has one). */
export function largestCandidate(srcset: string | null): string | undefined {
  if (!srcset) return undefined;
  let best: string | undefined;
  let bestSize = -1;
  for (const candidate of srcset.split(/,(?=\s*\S)/)) {
    const [url, descriptor = '1x'] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const size = Number.parseFloat(descriptor) || 0;
    if (size > bestSize) [best, bestSize] = [url, size];
  }
  return best;
}

const isPlaceholder = (src: string | null) => !src || /^\s*(?:data:|about:blank|#)/i.test(src);

/** The source a reader's browser ends up showing for an `<img>`, or `undefined`. */
export function imageSource(img: DomElement): string | undefined {
  for (const name of LAZY_SRC) {
    const value = img.getAttribute(name);
    if (!isPlaceholder(value)) return value!;
  }
  for (const name of LAZY_SRCSET) {
    const value = largestCandidate(img.getAttribute(name));
    if (value) return value;
  }
  const src = img.getAttribute('src');
  if (!isPlaceholder(src)) return src!;
  const fromSrcset = largestCandidate(img.getAttribute('srcset'));
  if (fromSrcset) return fromSrcset;
  const picture = img.parentNode?.nodeName === 'PICTURE' ? img.parentNode : undefined;
  const source = picture && elementChildren(picture).find((e) => e.nodeName === 'SOURCE' && e.getAttribute('srcset'));
  return source ? largestCandidate(source.getAttribute('srcset')) : undefined;
}

const EMOJI_CLASSES = new Set(['emoji', 'wp-smiley', 'wp-emoji']);

/**
 * An image element made ready for the image rule: its `src` set to the real source, an emoji image
 * replaced by its text. Returns false when the image is gone.
 */
export function prepareImage(img: DomElement): boolean {
  const alt = img.getAttribute('alt');
  if (alt && classesOf(img).some((c) => EMOJI_CLASSES.has(c))) {
    img.replaceWith(img.ownerDocument.createTextNode(alt));
    return false;
  }
  const src = imageSource(img);
  if (src) img.setAttribute('src', src);
  else img.removeAttribute('src');
  return true;
}

/**
 * A `<noscript>`: its image stands in for a lazy image only when nothing beside it shows one (the
 * image right before it is its lazy twin); anything else in it is what a browser with scripts hides.
 */
export function prepareNoscript(noscript: DomElement): void {
  const img = findElement(noscript, (e) => e.nodeName === 'IMG');
  const parent = noscript.parentNode;
  const shown = parent ? findElement(parent, (e) => e.nodeName === 'IMG' && e !== img && !isInside(e, noscript) && imageSource(e) !== undefined) : undefined;
  if (img && !shown) noscript.replaceWith(img);
  else noscript.remove();
}

const isInside = (node: DomElement, ancestor: DomElement): boolean => {
  for (let p = node.parentNode; p; p = p.parentNode) if (p === ancestor) return true;
  return false;
};

/** Elements that only make a player work: their text (`0:00`, `1×`) is never content. */
export const PLAYER_CHROME = new Set([
  'kg-video-overlay', 'kg-video-player-container', 'kg-audio-player', 'kg-audio-thumbnail', 'mejs-controls', 'plyr__controls', 'vjs-control-bar',
]);

/** The flow containers in which a media link gets a paragraph of its own. */
const FLOW_PARENTS = new Set(['X-TURNDOWN', 'DIV', 'FIGURE', 'SECTION', 'ARTICLE', 'MAIN', 'ASIDE', 'HEADER', 'FOOTER', 'BLOCKQUOTE', 'DETAILS', 'BODY', 'NAV']);

/** A link label: `Title (Provider)`, else `Embedded content: Provider`. */
export function embedLabel(href: string, title?: unknown, provider?: unknown): string {
  const name = typeof provider === 'string' && squashText(provider) ? squashText(provider).slice(0, 80) : hostLabel(href);
  const heading = typeof title === 'string' ? squashText(title).slice(0, 300) : '';
  return heading ? `${heading} (${name})` : `Embedded content: ${name}`;
}

/** Replaces `el` by a link to `href` labelled `label` (in a paragraph of its own in a flow container). */
export function replaceByLink(el: DomElement, href: string, label: string): DomElement {
  const doc = el.ownerDocument;
  const link = createElement(doc, 'a', [label], { href });
  const inFlow = FLOW_PARENTS.has(el.parentNode?.nodeName ?? 'X-TURNDOWN');
  el.replaceWith(inFlow ? createElement(doc, 'p', [link]) : link);
  return link;
}

const fileName = (href: string) => decodeURIComponent(new URL(href).pathname.split('/').pop() || hostLabel(href));

/** Classes of a player's title beside its media element (a Ghost audio card's). */
const MEDIA_TITLE = /^(?:kg-audio-title|kg-video-title|[\w-]*media-title)$/;

/**
 * A title for a media element: its own `title` or `aria-label`, else its player's title element beside
 * it, which is then hidden (the pre-pass drops it when it gets there) since the link carries it.
 */
function mediaTitle(el: DomElement): string {
  const own = squashText(el.getAttribute('title') ?? el.getAttribute('aria-label'));
  if (own) return own;
  const titled = el.parentNode && elementChildren(el.parentNode).find((e) => classesOf(e).some((c) => MEDIA_TITLE.test(c)));
  const text = squashText(titled?.textContent);
  if (titled && text) titled.setAttribute('hidden', '');
  return text;
}

/** `<video>` or `<audio>`: a link to its source (the `src`, else its first `<source>`), its fallback content dropped. */
export function prepareMediaElement(el: DomElement): void {
  const source = el.getAttribute('src') ?? elementChildren(el).find((e) => e.nodeName === 'SOURCE' && e.getAttribute('src'))?.getAttribute('src');
  const href = absoluteUrl(source, MEDIA_PROTOCOLS);
  if (!href) {
    el.remove();
    return;
  }
  const kind = el.nodeName === 'VIDEO' ? 'Video' : 'Audio';
  replaceByLink(el, href, mediaTitle(el) || `${kind}: ${fileName(href)}`);
}

/** Drupal's oEmbed proxy (`/media/oembed?url=…`) stands for the URL it embeds. */
function embeddedPage(href: string): string {
  const url = new URL(href);
  const target = url.pathname.endsWith('/media/oembed') ? url.searchParams.get('url') : null;
  return (target && absoluteUrl(target, MEDIA_PROTOCOLS)) || href;
}

/** Attributes a lazy loader keeps an iframe's real source in while its `src` is a placeholder. */
const LAZY_IFRAME_SRC = ['data-src', 'data-lazy-src', 'data-url'];

/** An `<iframe>`: a link to the page it shows, titled by its `title`; a WordPress post embed's iframe only doubles its link. */
export function prepareIframe(el: DomElement): void {
  const source = [el.getAttribute('src'), ...LAZY_IFRAME_SRC.map((name) => el.getAttribute(name))].find((s) => !isPlaceholder(s));
  const href = absoluteUrl(source, MEDIA_PROTOCOLS);
  if (!href || classesOf(el).includes('wp-embedded-content')) {
    el.remove();
    return;
  }
  const page = embeddedPage(href);
  replaceByLink(el, page, mediaTitle(el) || embedLabel(page));
}

/** An oEmbed placeholder (`<oembed url>`, `data-oembed-url`) or a stored WordPress embed URL: a link to the page. */
export function prepareEmbedUrl(el: DomElement, raw: string | null): boolean {
  const href = absoluteUrl(raw?.trim(), MEDIA_PROTOCOLS);
  if (!href) return false;
  replaceByLink(el, href, embedLabel(href));
  return true;
}

/** A WordPress embed block as stored: its wrapper holds nothing but the URL, on a line of its own. */
export function storedEmbedUrl(wrapper: DomElement): string | undefined {
  if (Array.from(wrapper.childNodes).some(isElement)) return undefined;
  const text = squashText(wrapper.textContent);
  return /^https?:\/\/\S+$/.test(text) ? text : undefined;
}
