import { z } from 'zod';

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
}

export const SETTING_NAMES = ['description', 'noindex', 'sitemapUrl', 'llmsNotes'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/** The limits of the stored values (the same as the factory options'). */
export const SETTING_LIMITS = { description: 1000, sitemapUrl: 2000, llmsNotes: 2000 } as const;

/** Control characters other than tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const text = (label: string, max: number) =>
  z
    .string()
    .transform((s) => s.replace(/\r\n?/g, '\n').trim())
    .superRefine((s, ctx) => {
      if (s.length > max) ctx.addIssue({ code: 'custom', message: `${label} must be at most ${max} characters (got ${s.length})` });
    })
    .refine((s) => !CONTROL.test(s), { message: `${label} must not contain control characters` });

/** A site path (`/sitemap.xml`) or an absolute http(s) URL, on one line. */
const sitemapUrl = text('sitemap URL', SETTING_LIMITS.sitemapUrl)
  .refine((s) => !/\s/.test(s), { message: 'sitemap URL must not contain spaces or line breaks' })
  .refine(
    (s) => s === '' || (s.startsWith('/') && !s.startsWith('//')) || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)),
    { message: 'sitemap URL must be a path on this site (/sitemap.xml) or an http(s) URL' },
  );

/** Validates the values to store; each message names the field. */
export const storedSettingsSchema = z
  .object({
    description: text('description', SETTING_LIMITS.description).nullable(),
    noindex: z.boolean().nullable(),
    sitemapUrl: sitemapUrl.nullable(),
    llmsNotes: text('llms.txt notes', SETTING_LIMITS.llmsNotes).nullable(),
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
