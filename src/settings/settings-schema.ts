import { z } from 'zod';
import { formatCrawlerRules, parseCrawlerRules } from './crawler-rules.js';

/**
 * The settings an administrator can change at run time, as stored in `agent_discovery_settings`:
 * `null` is "not set here" (the factory option applies); an empty string is "set to nothing"
 * (no description, no sitemap link, the default notes).
 */
export interface StoredSettings {
  description: string | null;
  noindex: boolean | null;
  sitemapUrl: string | null;
  llmsNotes: string | null;
  /** The Content Signals `search`, `ai-input` and `ai-train` (null: not set). */
  contentSignalSearch: boolean | null;
  contentSignalAiInput: boolean | null;
  contentSignalAiTrain: boolean | null;
  /** The `Allow:`/`Disallow:` lines of the plugin's robots.txt (null: the default `Allow: /`). */
  crawlerRules: string | null;
}

export const SETTING_NAMES = [
  'description',
  'noindex',
  'sitemapUrl',
  'llmsNotes',
  'contentSignalSearch',
  'contentSignalAiInput',
  'contentSignalAiTrain',
  'crawlerRules',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/** The limits of the stored values (the same as the factory options'). */
export const SETTING_LIMITS = { description: 1000, sitemapUrl: 2000, llmsNotes: 2000, crawlerRules: 4000 } as const;

/** Control characters other than tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * Free text: line endings made `\n`, trimmed, bounded, without control characters. Each message is a
 * sentence that names the field once, by its label on the admin page (`Description must be …`).
 */
const text = (label: string, max: number) =>
  z
    .string()
    .transform((s) => s.replace(/\r\n?/g, '\n').trim())
    .superRefine((s, ctx) => {
      if (s.length > max) ctx.addIssue({ code: 'custom', message: `${label} must be at most ${max} characters (got ${s.length})` });
    })
    .refine((s) => !CONTROL.test(s), { message: `${label} must not contain control characters` });

/** The description is the one-line summary of llms.txt: a line break is refused, not joined. */
const description = text('Description', SETTING_LIMITS.description).refine((s) => !s.includes('\n'), {
  message: 'Description must be one line (it is the summary line of llms.txt); put further paragraphs in the llms.txt notes',
});

/** A site path (`/sitemap.xml`) or an absolute http(s) URL, on one line. */
const sitemapUrl = text('Sitemap URL', SETTING_LIMITS.sitemapUrl)
  .refine((s) => !/\s/.test(s), { message: 'Sitemap URL must not contain spaces or line breaks' })
  .refine(
    (s) => s === '' || (s.startsWith('/') && !s.startsWith('//')) || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)),
    { message: 'Sitemap URL must be a path on this site (/sitemap.xml) or an http(s) URL' },
  );

/** `Allow:`/`Disallow:` lines, checked line by line and stored one rule a line; none is null (the default). */
const crawlerRules = text('Crawler rules', SETTING_LIMITS.crawlerRules).transform((s, ctx) => {
  const parsed = parseCrawlerRules(s);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  return parsed.rules.length ? formatCrawlerRules(parsed.rules) : null;
});

/** Validates the values to store; each message names the field once. */
const storedSettingsSchema = z
  .object({
    description: description.nullable(),
    noindex: z.boolean().nullable(),
    sitemapUrl: sitemapUrl.nullable(),
    llmsNotes: text('llms.txt notes', SETTING_LIMITS.llmsNotes).nullable(),
    contentSignalSearch: z.boolean().nullable(),
    contentSignalAiInput: z.boolean().nullable(),
    contentSignalAiTrain: z.boolean().nullable(),
    crawlerRules: crawlerRules.nullable(),
  })
  .strict();

/** One field's problem, for the form. */
export interface SettingProblem {
  field: SettingName;
  message: string;
}

/** Validates values to store: the cleaned values, or every problem with the field it concerns. */
export function validateSettings(input: StoredSettings): { ok: true; value: StoredSettings } | { ok: false; problems: SettingProblem[] } {
  const parsed = storedSettingsSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => ({ field: issue.path[0] as SettingName, message: issue.message })),
  };
}
