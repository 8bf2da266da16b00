/**
 * Address ranges in memory, looked up in microseconds: each list's CIDR prefixes merged into sorted,
 * disjoint intervals, searched by bisection. IPv4 as unsigned 32-bit numbers; IPv6 as 32 hex digits
 * (fixed width, so string order is numeric order); an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as
 * Node gives `req.ip` on a dual-stack socket) is looked up as the IPv4 address it carries.
 */

/** A parsed address: `v4` as a number, `v6` as 32 lower-case hex digits. */
export type ParsedAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: string };

const V4_PART = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const V6_GROUP = /^[0-9a-fA-F]{1,4}$/;
/** Longer text is not an address (and is not parsed). */
const MAX_ADDRESS_CHARS = 64;

function parseV4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!V4_PART.test(part)) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

function parseV6Groups(text: string): string[] | undefined {
  let body = text;
  // A trailing dotted IPv4 part (`::ffff:192.0.2.1`) is two groups.
  const lastColon = body.lastIndexOf(':');
  if (body.includes('.', lastColon)) {
    const v4 = parseV4(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const split = (s: string) => (s === '' ? [] : s.split(':'));
  const head = split(halves[0]!);
  const rest = halves.length === 2 ? split(halves[1]!) : [];
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const groups = [...head, ...Array<string>(8 - given).fill('0'), ...rest];
  return groups.every((g) => V6_GROUP.test(g)) ? groups : undefined;
}

/**
 * Parses an IPv4 or IPv6 address (a zone id `%eth0` is dropped); an IPv4-mapped IPv6 address becomes
 * its IPv4 address. `undefined` for anything else (never throws).
 *
 * ```ts
 * parseAddress('::ffff:192.0.2.1') // { family: 4, value: 3221225985 }
 * ```
 */
export function parseAddress(input: unknown): ParsedAddress | undefined {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_ADDRESS_CHARS) return undefined;
  if (!input.includes(':')) {
    const value = parseV4(input);
    return value === undefined ? undefined : { family: 4, value };
  }
  const groups = parseV6Groups(input.split('%')[0]!);
  if (!groups) return undefined;
  const hex = groups.map((g) => g.toLowerCase().padStart(4, '0')).join('');
  if (hex.startsWith('00000000000000000000ffff')) return { family: 4, value: parseInt(hex.slice(24), 16) };
  return { family: 6, value: hex };
}

/** Sorted, disjoint intervals of one list. */
export interface RangeList {
  readonly v4Start: Float64Array;
  readonly v4End: Float64Array;
  readonly v6Start: readonly string[];
  readonly v6End: readonly string[];
  /** How many prefixes the list was built from. */
  readonly prefixes: number;
}

/** Parses `192.0.2.0/24` or `2001:db8::/32` into its first and last address; `undefined` when it is not a prefix. */
export function parsePrefix(text: string): { family: 4; start: number; end: number } | { family: 6; start: string; end: string } | undefined {
  if (typeof text !== 'string' || text.length > MAX_ADDRESS_CHARS + 4) return undefined;
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  const address = text.slice(0, slash);
  if (!address.includes(':')) {
    const value = parseV4(address);
    if (value === undefined || bits > 32) return undefined;
    const size = 2 ** (32 - bits);
    const start = value - (value % size);
    return { family: 4, start, end: start + size - 1 };
  }
  const groups = parseV6Groups(address);
  if (!groups || bits > 128) return undefined;
  const binary = groups.map((g) => parseInt(g, 16).toString(2).padStart(16, '0')).join('');
  const start = binary.slice(0, bits).padEnd(128, '0');
  const end = binary.slice(0, bits).padEnd(128, '1');
  const hex = (b: string) => b.match(/.{4}/g)!.map((n) => parseInt(n, 2).toString(16)).join('');
  return { family: 6, start: hex(start), end: hex(end) };
}

function merged<T extends number | string>(intervals: [T, T][], next: (v: T) => T): [T, T][] {
  intervals.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: [T, T][] = [];
  for (const [s, e] of intervals) {
    const last = out[out.length - 1];
    if (last && (s <= last[1] || s === next(last[1]))) {
      if (e > last[1]) last[1] = e;
    } else out.push([s, e]);
  }
  return out;
}

const nextHex = (h: string): string => {
  if (/^f+$/.test(h)) return h;
  return (BigInt(`0x${h}`) + 1n).toString(16).padStart(32, '0');
};

/**
 * Builds a list from CIDR prefixes. Throws naming the first prefix that is not one (a refresh refuses the
 * file; the shipped snapshot is checked by a test).
 */
export function buildRangeList(prefixes: readonly string[]): RangeList {
  const v4: [number, number][] = [];
  const v6: [string, string][] = [];
  for (const p of prefixes) {
    const parsed = parsePrefix(p);
    if (!parsed) throw new Error(`not an IP prefix: ${JSON.stringify(String(p).slice(0, 80))}`);
    if (parsed.family === 4) v4.push([parsed.start, parsed.end]);
    else v6.push([parsed.start, parsed.end]);
  }
  const m4 = merged(v4, (n) => n + 1);
  const m6 = merged(v6, nextHex);
  return Object.freeze({
    v4Start: Float64Array.from(m4.map((i) => i[0])),
    v4End: Float64Array.from(m4.map((i) => i[1])),
    v6Start: Object.freeze(m6.map((i) => i[0])),
    v6End: Object.freeze(m6.map((i) => i[1])),
    prefixes: prefixes.length,
  });
}

/** Whether the list holds the address: bisection over the intervals of its family. */
export function rangeListHas(list: RangeList, address: ParsedAddress): boolean {
  const starts = address.family === 4 ? list.v4Start : list.v6Start;
  const ends = address.family === 4 ? list.v4End : list.v6End;
  let lo = 0;
  let hi = starts.length - 1;
  const v = address.value;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! > v) hi = mid - 1;
    else if (ends[mid]! < v) lo = mid + 1;
    else return true;
  }
  return false;
}
