import type { ComposableMedium } from '../content/composable-resources.js';
import type { MediaUrlInput } from '../options.js';

/** A resource's medium as `_agent_content` sees it (the variable `medium`). */
export interface TemplateMedium {
  /** The absolute download URL, from the `mediaUrl` option. */
  url: string;
  mime: string;
  filename: string;
  width: number | null;
  height: number | null;
  size: number | null;
  /** The size for people: `"512 bytes"`, `"4.7 KiB"`, `"1.2 MiB"`; empty when unknown. */
  size_text: string;
  /** True for `image/*`: the default template shows the image itself. */
  is_image: boolean;
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * A byte count in binary units with one decimal.
 *
 * ```ts
 * formatSize(482113) // '470.8 KiB'
 * ```
 */
export function formatSize(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** The template view of a resource's medium, its download URL made absolute against `baseUrl`. */
export function templateMedium(
  id: number,
  medium: ComposableMedium,
  mediaUrl: (m: MediaUrlInput) => string,
  baseUrl: string,
): TemplateMedium {
  return {
    url: new URL(mediaUrl({ id, filename: medium.filename, mime: medium.mime }), `${baseUrl}/`).href,
    mime: medium.mime,
    filename: medium.filename,
    width: medium.width,
    height: medium.height,
    size: medium.size,
    size_text: formatSize(medium.size),
    is_image: /^image\//i.test(medium.mime),
  };
}
