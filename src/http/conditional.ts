/**
 * `If-None-Match` evaluated by the origin as RFC 9110 §13.1.2 says, for GET and HEAD.
 *
 * Request cache directives (`Cache-Control: no-cache`, `Pragma: no-cache`) tell caches to revalidate;
 * they do not switch off the origin's precondition evaluation. `fetch()` (undici, browsers) adds both
 * to every request that carries `If-None-Match`, so a check that treats them as "stale" (Express's
 * `req.fresh`) would never answer such a client with 304.
 */

/** One entity-tag: `"opaque"` or `W/"opaque"`; etagc is `!`, `#`–`~` and obs-text (RFC 9110 §8.8.3). */
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/y;
const OWS = /[ \t]*/y;

/**
 * The entity-tags of an `If-None-Match` value: `'*'`, the list of opaque-tags (with `W/` dropped,
 * as weak comparison ignores it), or `undefined` when the value does not follow the grammar
 * `"*" / #entity-tag` (such a field is ignored, as if absent). Empty list elements are allowed,
 * as the list syntax of RFC 9110 §5.6.1 says.
 *
 * ```text
 * '*'                      → '*'
 * '"a", W/"b" ,, "c,d"'    → ['a', 'b', 'c,d']
 * 'a' | '"a' | '"a" "b"'   → undefined
 * ```
 */
export function parseIfNoneMatch(value: string): '*' | string[] | undefined {
  if (/^[ \t]*\*[ \t]*$/.test(value)) return '*';
  const tags: string[] = [];
  let at = 0;
  const skip = (re: RegExp) => {
    re.lastIndex = at;
    if (re.exec(value)) at = re.lastIndex;
  };
  while (at < value.length) {
    skip(OWS);
    if (value[at] === ',') {
      at += 1;
      continue;
    }
    if (at === value.length) break;
    ENTITY_TAG.lastIndex = at;
    const match = ENTITY_TAG.exec(value);
    if (!match) return undefined;
    tags.push(match[2]!);
    at = ENTITY_TAG.lastIndex;
    skip(OWS);
    if (at < value.length && value[at] !== ',') return undefined;
  }
  return tags;
}

/**
 * Whether a GET or HEAD answer with this `ETag` is a 304 Not Modified: the request's `If-None-Match`
 * is `*` or lists an entity-tag that matches by weak comparison (opaque-tags equal, `W/` ignored on
 * either side). No header, or one that does not parse, is never a 304.
 */
export function isNotModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = parseIfNoneMatch(header);
  if (tags === undefined) return false;
  if (tags === '*') return true;
  const own = parseIfNoneMatch(etag);
  if (own === undefined || own === '*' || own.length !== 1) return false;
  return tags.includes(own[0]!);
}
