import { SETTING_LIMITS, validateSettings, type SettingProblem, type StoredSettings } from '../settings/settings-schema.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';
import { SETTING_LABELS } from './overview.js';

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

/** The built-in text a field falls back to when it is empty (none for the sitemap URL). */
const builtIn = (s: EffectiveSettings, name: TextSetting): string => (name === 'sitemapUrl' ? '' : s.defaults[name]);

/**
 * The form as the effective settings fill it: each text is the one in force, so a field left at its
 * default shows the default's text (the description, the llms.txt notes) and can be edited from there.
 */
export function formValues(s: EffectiveSettings): SettingsFormValues {
  const text = (name: TextSetting) => ({ useOption: s.stored[name] === null, value: s[name] ?? builtIn(s, name) });
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

/** Text as the settings store compares and keeps it (line endings made `\n`, trimmed). */
const normalised = (text: string): string => text.replace(/\r\n?/g, '\n').trim();

/**
 * One text field of the form, against what the form showed (`current`, the settings in force): with
 * "Use this value", the text (the built-in default's own text is stored as empty, which is that
 * default); with "Use the option from the code", the option, unless the text was changed: a text typed
 * over the option's counts as "Use this value", and a text changed while switching a value of the
 * site's own back to the option is refused (which was meant cannot be told).
 */
function readText(body: Record<string, unknown>, name: TextSetting, current: EffectiveSettings): { value: string | null; problem?: string } {
  const source = field(body, `${name}_source`) || 'options';
  if (source !== 'options' && source !== 'site') return { value: null, problem: `${SETTING_LABELS[name]}: choose "Use the option from the code" or "Use this value"` };
  const text = normalised(field(body, name));
  const shown = normalised(formValues(current)[name].value);
  const own = (t: string) => (t === normalised(builtIn(current, name)) ? '' : t);
  if (source === 'site') return { value: own(text) };
  if (text === '' || text === shown) return { value: null };
  if (current.stored[name] === null) return { value: own(text) };
  return {
    value: null,
    problem: `${SETTING_LABELS[name]} was changed, but "Use the option from the code" is chosen: choose "Use this value" to save the text, or leave the text as it was to use the option`,
  };
}

/**
 * Reads the posted form (`<name>_source` = `options` | `site`, `<name>`, `noindex` = `options` |
 * `yes` | `no`, each Content Signal `unset` | `yes` | `no`, `crawlerRules`; a field left out is
 * `options` or `unset`) into values to store, validated against the settings in force when the form
 * was shown (`current`): the cleaned values, or the problems, each a sentence naming its field once,
 * with the form to show again (long values cut to their limit).
 */
export function readSettingsForm(
  body: Record<string, unknown>,
  current: EffectiveSettings,
): { ok: true; value: StoredSettings } | { ok: false; problems: SettingProblem[]; form: SettingsFormValues } {
  const problems: SettingProblem[] = [];
  const text = (name: TextSetting) => {
    const read = readText(body, name, current);
    if (read.problem) problems.push({ field: name, message: read.problem });
    return read.value;
  };
  const noindexField = field(body, 'noindex') || 'options';
  if (!['options', 'yes', 'no'].includes(noindexField)) problems.push({ field: 'noindex', message: 'Site noindex must be "options", "yes" or "no"' });
  const signal = (name: SignalSetting) => {
    const choice = field(body, name) || 'unset';
    if (!SIGNAL_CHOICES.includes(choice)) problems.push({ field: name, message: `${SETTING_LABELS[name]} must be "unset", "yes" or "no"` });
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
