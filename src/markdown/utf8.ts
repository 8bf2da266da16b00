/** UTF-8 sizes and cuts: every bound of the Markdown module counts UTF-8 bytes. */

export const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The longest prefix of `s` that is at most `maxBytes` of UTF-8, never splitting a character. */
export function utf8Prefix(s: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: a prefix this short always fits.
  if (s.length * 3 <= maxBytes) return s;
  const head = s.slice(0, maxBytes);
  const bytes = Buffer.from(head, 'utf8');
  if (bytes.length <= maxBytes) return head;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
