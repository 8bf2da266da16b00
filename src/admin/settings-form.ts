import { SETTING_LIMITS, validateSettings, type SettingProblem, type StoredSettings } from '../settings/settings-schema.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';

type TextSetting = 'description' | 'sitemapUrl' | 'llmsNotes';
const TEXT_SETTINGS: readonly TextSetting[] = ['description', 'sitemapUrl', 'llmsNotes'];

/** What the settings form shows per field: its stored value (or the option's), and whether the option applies. */
export interface SettingsFormValues {
  description: { useOption: boolean; value: string };
  sitemapUrl: { useOption: boolean; value: string };
  llmsNotes: { useOption: boolean; value: string };
  noindex: 'options' | 'yes' | 'no';
}

/** The form as the effective settings fill it. */
export function formValues(s: EffectiveSettings): SettingsFormValues {
  const text = (name: TextSetting) => ({ useOption: s.stored[name] === null, value: s.stored[name] ?? s[name] ?? '' });
  return {
    description: text('description'),
    sitemapUrl: text('sitemapUrl'),
    llmsNotes: text('llmsNotes'),
    noindex: s.stored.noindex === null ? 'options' : s.stored.noindex ? 'yes' : 'no',
  };
}

const field = (body: Record<string, unknown>, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');

/**
 * Reads the posted form (`<name>_source` = `options` | `site`, `<name>`, `noindex` = `options` |
 * `yes` | `no`) into values to store, validated: the cleaned values, or the problems with the form
 * to show again (long values cut to their limit).
 */
export function readSettingsForm(body: Record<string, unknown>):
  | { ok: true; value: StoredSettings }
  | { ok: false; problems: SettingProblem[]; form: SettingsFormValues } {
  const problems: SettingProblem[] = [];
  const text = (name: TextSetting) => {
    const source = field(body, `${name}_source`) || 'options';
    if (source !== 'options' && source !== 'site') problems.push({ field: name, message: `${name}_source must be "options" or "site"` });
    return source === 'site' ? field(body, name) : null;
  };
  const noindexField = field(body, 'noindex') || 'options';
  if (!['options', 'yes', 'no'].includes(noindexField)) problems.push({ field: 'noindex', message: 'site noindex must be "options", "yes" or "no"' });
  const input: StoredSettings = {
    description: text('description'),
    noindex: noindexField === 'yes' ? true : noindexField === 'no' ? false : null,
    sitemapUrl: text('sitemapUrl'),
    llmsNotes: text('llmsNotes'),
  };
  const checked = validateSettings(input);
  if (checked.ok && !problems.length) return { ok: true, value: checked.value };
  const echo = (name: TextSetting) => ({ useOption: input[name] === null, value: field(body, name).slice(0, SETTING_LIMITS[name]) });
  return {
    ok: false,
    problems: [...problems, ...(checked.ok ? [] : checked.problems)],
    form: {
      description: echo('description'),
      sitemapUrl: echo('sitemapUrl'),
      llmsNotes: echo('llmsNotes'),
      noindex: (['options', 'yes', 'no'].includes(noindexField) ? noindexField : 'options') as SettingsFormValues['noindex'],
    },
  };
}

export { TEXT_SETTINGS };
