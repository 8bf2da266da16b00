import { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { DEFAULT_CRAWLER_RULES, formatCrawlerRules, parseCrawlerRules } from './crawler-rules.js';
import { formatSiteLicense, parseSiteLicense, SITE_COPYRIGHT_MAX, SITE_LICENSE_TEXT_MAX } from './site-license.js';
import { parseAgentPolicy } from '../policy/agent-policy.js';
import { catalogueForPolicies } from '../traffic/agent-catalogue.js';

/**
 * The run-time settings, defined once: each entry holds what is stored (its zod schema), the admin
 * form's field (kind, limit, label, help), the factory option it overrides and the built-in default.
 * The stored shape (`StoredSettings`), the effective settings, the form, its limits and messages, the
 * overview table and `docs/reference/settings.md` all derive from {@link SETTINGS}: adding a setting
 * is one entry here plus its use.
 *
 * Stored in the one row of `agent_discovery_settings` as a JSON object (`settings`), one member per
 * setting set here; a missing member is "not set here" (the factory option applies); an empty text
 * is "set to nothing" (no description, no sitemap link, the default notes).
 */

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

/** How the admin form edits a setting. */
export type SettingField = TextField | ChoiceField | RulesField;
/** A text with "Use the option from the code" / "Use this value"; `builtIn`: the form shows the built-in text when none is set. */
export interface TextField {
  readonly kind: 'text';
  readonly max: number;
  readonly rows: number;
  readonly builtIn: boolean;
}
/** A choice of yes, no, or not set here (`unset` is the form value of "not set here"). */
export interface ChoiceField {
  readonly kind: 'choice';
  readonly unset: 'options' | 'unset';
  readonly labels: { readonly unset: string; readonly yes: string; readonly no: string };
}
/** Lines of rules, stored as typed (checked); empty is the default. */
export interface RulesField {
  readonly kind: 'rules';
  readonly max: number;
  readonly rows: number;
}

/** One run-time setting: `V` is its stored value, `B` the built-in default (`undefined`: none). */
export interface SettingDefinition<V, B extends V | undefined, F extends SettingField = SettingField> {
  /** Its label on the admin pages, and the field named in its messages. */
  readonly label: string;
  /** What it does, in the form's legend and the reference. */
  readonly help: string;
  /** The form's fieldset it shares with others (Content Signals), if any. */
  readonly group?: string;
  /** Validates (and cleans) a value to store; null (not set here) is always allowed. */
  readonly schema: z.ZodType<V | null, unknown>;
  readonly field: F;
  /** The factory option's value (undefined: the code sets none). */
  readonly fromOptions: (options: ResolvedOptions) => V | undefined;
  /** What applies when neither the table nor the options set it. */
  readonly builtIn: B;
  /** The option named in the reference. */
  readonly option: string | null;
}

/** A text setting: stored as typed (cleaned), no built-in value of its own. */
const textSetting = (d: SettingDefinition<string, undefined, TextField>) => Object.freeze(d);
/** A yes / no / not-set setting with the built-in value `B`. */
const choiceSetting = <B extends boolean | undefined>(d: SettingDefinition<boolean, B, ChoiceField>) => Object.freeze(d);
/** Rules: lines checked and stored one a line, with a built-in default. */
const rulesSetting = (d: SettingDefinition<string, string, RulesField>) => Object.freeze(d);

/** The description is the one-line summary of llms.txt: a line break is refused, not joined. */
const DESCRIPTION_MAX = 1000;
/** A site path (`/sitemap.xml`) or an absolute http(s) URL, on one line. */
const SITEMAP_MAX = 2000;
const NOTES_MAX = 2000;
const RULES_MAX = 4000;
/** The agent policy as JSON text: 200 rules of a few hundred characters each. */
const POLICY_MAX = 100_000;

const signal = (name: string, meaning: string, option: 'search' | 'ai-input' | 'ai-train') =>
  choiceSetting<undefined>({
    label: `Content Signal ${name}`,
    help: meaning,
    group: 'Content Signals (AI usage preferences: in robots.txt when the plugin serves it, and as the Content-Usage header on content responses; a signal set neither here nor by the contentSignals option is left out)',
    schema: z.boolean().nullable(),
    field: { kind: 'choice', unset: 'unset', labels: { unset: 'Not set here (the contentSignals option from the code, if it sets one)', yes: 'Yes', no: 'No' } },
    fromOptions: (o) => o.contentSignals[option],
    builtIn: undefined,
    option: `contentSignals['${option}']`,
  });

/** Every run-time setting, in the order the admin pages show them. */
export const SETTINGS = Object.freeze({
  description: textSetting({
    label: 'Description',
    help: 'one line: the summary line of llms.txt, API help, OpenAPI, ARD; empty for the built-in line shown when none is set',
    schema: text('Description', DESCRIPTION_MAX)
      .refine((s) => !s.includes('\n'), {
        message: 'Description must be one line (it is the summary line of llms.txt); put further paragraphs in the llms.txt notes',
      })
      .nullable(),
    field: { kind: 'text', max: DESCRIPTION_MAX, rows: 3, builtIn: true },
    fromOptions: (o) => o.description,
    builtIn: undefined,
    option: 'description',
  }),
  noindex: choiceSetting<boolean>({
    label: 'Site noindex',
    help: 'nothing is listed or advertised as indexable',
    schema: z.boolean().nullable(),
    field: { kind: 'choice', unset: 'options', labels: { unset: 'Use the option from the code', yes: 'Yes: the whole site is noindex', no: 'No' } },
    fromOptions: (o) => (o.noindex ? true : undefined),
    builtIn: false,
    option: 'noindex',
  }),
  sitemapUrl: textSetting({
    label: 'Sitemap URL',
    help: 'a path such as /sitemap.xml or an http(s) URL; empty for none',
    schema: text('Sitemap URL', SITEMAP_MAX)
      .refine((s) => !/\s/.test(s), { message: 'Sitemap URL must not contain spaces or line breaks' })
      .refine(
        (s) => s === '' || (s.startsWith('/') && !s.startsWith('//')) || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)),
        { message: 'Sitemap URL must be a path on this site (/sitemap.xml) or an http(s) URL' },
      )
      .nullable(),
    field: { kind: 'text', max: SITEMAP_MAX, rows: 1, builtIn: false },
    fromOptions: (o) => o.sitemapUrl,
    builtIn: undefined,
    option: 'sitemapUrl',
  }),
  llmsNotes: textSetting({
    label: 'llms.txt notes',
    help: 'the paragraphs after the summary, one per line; empty for the built-in text shown when none is set',
    schema: text('llms.txt notes', NOTES_MAX).nullable(),
    field: { kind: 'text', max: NOTES_MAX, rows: 4, builtIn: true },
    fromOptions: (o) => o.llmsNotes,
    builtIn: undefined,
    option: 'llmsNotes',
  }),
  siteLicense: textSetting({
    label: 'Site licence',
    help: 'the licence of the content, on one line: its name, a link to it, or both (CC BY 4.0 https://creativecommons.org/licenses/by/4.0/); in llms.txt, the MCP server card and the front matter of every resource without a licence of its own; empty for none',
    // Stored as one line, name then link (`formatSiteLicense`); read back with `parseSiteLicense`.
    schema: text('Site licence', SITE_LICENSE_TEXT_MAX)
      .transform((s, ctx) => {
        const parsed = parseSiteLicense(s);
        if (!parsed.ok) {
          ctx.addIssue({ code: 'custom', message: parsed.message });
          return z.NEVER;
        }
        return parsed.license ? formatSiteLicense(parsed.license) : '';
      })
      .nullable(),
    field: { kind: 'text', max: SITE_LICENSE_TEXT_MAX, rows: 1, builtIn: false },
    fromOptions: (o) => (o.siteLicense ? formatSiteLicense(o.siteLicense) : undefined),
    builtIn: undefined,
    option: 'siteLicense',
  }),
  siteCopyright: textSetting({
    label: 'Copyright',
    help: 'the copyright line of the content, such as © 2026 Example Press; published beside the site licence, with the same rule; empty for none',
    schema: text('Copyright', SITE_COPYRIGHT_MAX)
      .refine((s) => !s.includes('\n'), { message: 'Copyright must be one line' })
      .nullable(),
    field: { kind: 'text', max: SITE_COPYRIGHT_MAX, rows: 1, builtIn: false },
    fromOptions: (o) => o.siteCopyright,
    builtIn: undefined,
    option: 'siteCopyright',
  }),
  contentSignalSearch: signal('search', 'building a search index and showing links and short excerpts, not AI summaries', 'search'),
  contentSignalAiInput: signal('ai-input', 'input to an AI model answering a question: grounding, retrieval, AI answers', 'ai-input'),
  contentSignalAiTrain: signal('ai-train', 'training or fine-tuning AI models', 'ai-train'),
  crawlerRules: rulesSetting({
    label: 'Crawler rules (robots.txt)',
    help: 'robots.txt for User-agent: *, when the plugin serves it: one Allow: or Disallow: line each, such as Disallow: /drafts/; empty for Allow: /',
    // Checked line by line and stored one rule a line; none is null (the default).
    schema: text('Crawler rules', RULES_MAX)
      .transform((s, ctx) => {
        const parsed = parseCrawlerRules(s);
        if (!parsed.ok) {
          ctx.addIssue({ code: 'custom', message: parsed.message });
          return z.NEVER;
        }
        return parsed.rules.length ? formatCrawlerRules(parsed.rules) : null;
      })
      .nullable(),
    field: { kind: 'rules', max: RULES_MAX, rows: 4 },
    fromOptions: () => undefined,
    builtIn: DEFAULT_CRAWLER_RULES,
    option: null,
  }),
  agentPolicy: rulesSetting({
    label: 'Agent policy',
    help: 'what each agent gets, as JSON: {"rules": [{"purpose": "training", "action": "block"}, …]}, first match wins, default allow (the Policy page edits it with presets and a preview); empty for the agentPolicy option from the code',
    // Stored as compact JSON of a policy that validates; none is null (the option applies).
    schema: text('Agent policy', POLICY_MAX)
      .transform((s, ctx) => {
        if (s === '') return null;
        let value: unknown;
        try {
          value = JSON.parse(s);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'Agent policy must be JSON such as {"rules": [{"purpose": "training", "action": "block"}]}' });
          return z.NEVER;
        }
        const parsed = parseAgentPolicy(value, catalogueForPolicies(), 'Agent policy');
        if (!parsed.ok) {
          ctx.addIssue({ code: 'custom', message: parsed.message });
          return z.NEVER;
        }
        return JSON.stringify(parsed.policy);
      })
      .nullable(),
    field: { kind: 'rules', max: POLICY_MAX, rows: 6 },
    fromOptions: (o) => (o.agentPolicy === undefined ? undefined : JSON.stringify(o.agentPolicy)),
    builtIn: '{"rules":[]}',
    option: 'agentPolicy',
  }),
  traffic: choiceSetting<boolean>({
    label: 'Count agent traffic',
    help: 'pause or resume the counting of the Agents page; only where the code turns the traffic option on, within one flush interval on every instance',
    schema: z.boolean().nullable(),
    field: { kind: 'choice', unset: 'options', labels: { unset: 'Use the option from the code', yes: 'Yes: count agent traffic', no: 'No: pause the counting' } },
    fromOptions: (o) => (o.traffic ? true : undefined),
    builtIn: false,
    option: 'traffic',
  }),
});

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;

/** The names of the settings, in the order of {@link SETTINGS}. */
export const SETTING_NAMES = Object.freeze(Object.keys(SETTINGS)) as readonly SettingName[];

/** The value a setting stores (without null). */
export type StoredValue<N extends SettingName> = Settings[N] extends SettingDefinition<infer V, infer _B, infer _F> ? V : never;

/** What the table holds: each setting's stored value, `null` when not set here. */
export type StoredSettings = { readonly [N in SettingName]: StoredValue<N> | null };

/** The value in force: the stored value, else the option, else the built-in default (`undefined`: none). */
export type EffectiveValue<N extends SettingName> = Settings[N] extends SettingDefinition<infer V, infer B, infer _F> ? V | B : never;

/** The limits of the stored texts (the same as the factory options'), by setting. */
export const SETTING_LIMITS = Object.freeze(
  Object.fromEntries(SETTING_NAMES.flatMap((n) => { const f: SettingField = SETTINGS[n].field; return f.kind === 'choice' ? [] : [[n, f.max]]; })),
) as { readonly [N in SettingName as Settings[N]['field'] extends { max: number } ? N : never]: number };

/** Nothing stored: every setting comes from the options. */
export const NOTHING_STORED: StoredSettings = Object.freeze(Object.fromEntries(SETTING_NAMES.map((n) => [n, null]))) as StoredSettings;

/** Validates the values to store; each message names the field once. */
const storedSettingsSchema = z.object(Object.fromEntries(SETTING_NAMES.map((n) => [n, SETTINGS[n].schema])) as { [N in SettingName]: Settings[N]['schema'] }).strict();

/** One field's problem, for the form. */
export interface SettingProblem {
  field: SettingName;
  message: string;
}

/** Validates values to store: the cleaned values, or every problem with the field it concerns. */
export function validateSettings(input: StoredSettings): { ok: true; value: StoredSettings } | { ok: false; problems: SettingProblem[] } {
  const parsed = storedSettingsSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data as StoredSettings };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => ({ field: issue.path[0] as SettingName, message: issue.message })),
  };
}

/**
 * The stored settings of a row's JSON object: each member that its setting's schema accepts (a member
 * written by hand that does not validate, or one no setting has, is not set here).
 */
export function storedFromJson(json: unknown): StoredSettings {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return NOTHING_STORED;
  const record = json as Record<string, unknown>;
  const stored: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = record[name];
    if (value === undefined || value === null) stored[name] = null;
    else {
      const parsed = SETTINGS[name].schema.safeParse(value);
      stored[name] = parsed.success ? parsed.data : null;
    }
  }
  return Object.freeze(stored) as StoredSettings;
}

/** The stored settings as the row's JSON object holds them: only the members set here. */
export function jsonFromStored(stored: StoredSettings): Record<string, unknown> {
  return Object.fromEntries(SETTING_NAMES.flatMap((n) => (stored[n] === null ? [] : [[n, stored[n]]])));
}
