/** How the admin pages show dates and sizes to a person (not to an agent: agents get ISO 8601). */

const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
});

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
  return Number.isNaN(date.getTime()) ? String(value) : `${DATE_TIME.format(date)} UTC`;
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

/**
 * A count with its noun, singular for one.
 *
 * ```ts
 * counted(1, 'entry', 'entries') // '1 entry'
 * ```
 */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
