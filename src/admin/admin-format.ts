/** How the admin pages show dates and sizes to a person (not to an agent: agents get ISO 8601). */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * A moment as an administrator reads it, in UTC to the minute; empty for no date.
 *
 * ```ts
 * adminDate('2026-12-01T10:44:07.123Z') // '1 Dec 2026, 10:44 UTC'
 * ```
 */
export function adminDate(value: Date | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  // Built by hand, not by Intl: the same text whatever the ICU data (en-GB spells September "Sept").
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${two(date.getUTCHours())}:${two(date.getUTCMinutes())} UTC`;
}

/**
 * A byte count in binary units, one decimal above a KiB.
 *
 * ```ts
 * adminBytes(3096) // '3.0 KiB'
 * adminBytes(512)  // '512 bytes'
 * ```
 */
export function adminBytes(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

