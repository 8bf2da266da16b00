import { SETTING_LIMITS, validateSettings, type SettingProblem, type StoredSettings } from '../settings/settings-schema.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';

type TextSetting = 'description' | 'sitemapUrl' | 'llmsNotes';
const TEXT_SETTINGS: readonly TextSetting[] = ['description', 'sitemapUrl', 'llmsNotes'];

/** The Content Signal fields; each is `unset`, `yes` or `no` on the form. */
type SignalSetting = 'contentSignalSearch' | 'contentSignalAiInput' | 'contentSignalAiTrain';
type SignalChoice = 'unset' | 'yes' | 'no';
const SIGNAL_CHOICES: readonly string[] = ['unset', 'yes', 'no'];
const signalChoice = (v: boolean | null): SignalChoice => (v === null ? 'unset' : v ? 'yes' : 'no');

/** What the settings form shows per field: its stored value (or the option's), and whether the option applies. */
export interface SettingsFormValues {
  description: { useOption: boolean; value: string };
  sitemapUrl: { useOption: boolean; value: string };
  llmsNotes: { useOption: boolean; value: string };
  noindex: 'options' | 'yes' | 'no';
  contentSignalSearch: SignalChoice;
  contentSignalAiInput: SignalChoice;
  contentSignalAiTrain: SignalChoice;
  /** The crawler rules as stored (empty: the default `Allow: /`). */
  crawlerRules: string;
}

/** The form as the effective settings fill it. */
export function formValues(s: EffectiveSettings): SettingsFormValues {
  const text = (name: TextSetting) => ({ useOption: s.stored[name] === null, value: s.stored[name] ?? s[name] ?? '' });
  return {
    description: text('description'),
    sitemapUrl: text('sitemapUrl'),
    llmsNotes: text('llmsNotes'),
    noindex: s.stored.noindex === null ? 'options' : s.stored.noindex ? 'yes' : 'no',
    contentSignalSearch: signalChoice(s.stored.contentSignalSearch),
    contentSignalAiInput: signalChoice(s.stored.contentSignalAiInput),
    contentSignalAiTrain: signalChoice(s.stored.contentSignalAiTrain),
    crawlerRules: s.stored.crawlerRules ?? '',
  };
}

const field = (body: Record<string, unknown>, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');

/**
 * Reads the posted form (`<name>_source` = `options` | `site`, `<name>`, `noindex` = `options` |
 * `yes` | `no`, each Content Signal `unset` | `yes` | `no`, `crawlerRules`; a field left out is
 * `options` or `unset`) into values to store, validated: the cleaned values, or the problems with the
 * form to show again (long values cut to their limit).
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
  const signal = (name: SignalSetting) => {
    const choice = field(body, name) || 'unset';
    if (!SIGNAL_CHOICES.includes(choice)) problems.push({ field: name, message: 'a Content Signal must be "unset", "yes" or "no"' });
    return choice === 'yes' ? true : choice === 'no' ? false : null;
  };
  const input: StoredSettings = {
    description: text('description'),
    noindex: noindexField === 'yes' ? true : noindexField === 'no' ? false : null,
    sitemapUrl: text('sitemapUrl'),
    llmsNotes: text('llmsNotes'),
    contentSignalSearch: signal('contentSignalSearch'),
    contentSignalAiInput: signal('contentSignalAiInput'),
    contentSignalAiTrain: signal('contentSignalAiTrain'),
    crawlerRules: field(body, 'crawlerRules'),
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
      contentSignalSearch: signalChoice(input.contentSignalSearch),
      contentSignalAiInput: signalChoice(input.contentSignalAiInput),
      contentSignalAiTrain: signalChoice(input.contentSignalAiTrain),
      crawlerRules: field(body, 'crawlerRules').slice(0, SETTING_LIMITS.crawlerRules),
    },
  };
}

export { TEXT_SETTINGS };
