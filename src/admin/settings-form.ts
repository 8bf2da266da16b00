import { SETTINGS, SETTING_NAMES, validateSettings, type SettingField, type SettingName, type SettingProblem, type StoredSettings } from '../settings/settings-schema.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';

/** What the form shows for a text: the text in force, and whether the option from the code applies. */
export interface TextFormValue {
  useOption: boolean;
  value: string;
}

/** What the settings form shows per field, by the kind of its field (see `SETTINGS`): a text, a choice (`options` | `unset` | `yes` | `no`), or rules. */
export type SettingsFormValues = Record<SettingName, TextFormValue | string>;

/** One field of the form as the template draws it. */
export interface SettingsFormField {
  name: SettingName;
  label: string;
  help: string;
  group: string | undefined;
  field: SettingField;
  value: TextFormValue | string;
}

type TextSetting = { [N in SettingName]: (typeof SETTINGS)[N]['field'] extends { kind: 'text' } ? N : never }[SettingName];
const isText = (name: SettingName): name is TextSetting => SETTINGS[name].field.kind === 'text';

/** The built-in text a text field falls back to when it is empty (none for the sitemap URL). */
function builtIn(s: EffectiveSettings, name: TextSetting): string {
  const field = SETTINGS[name].field;
  return field.builtIn && (name === 'description' || name === 'llmsNotes') ? s.defaults[name] : '';
}

const choiceOf = (unset: string, v: boolean | null): string => (v === null ? unset : v ? 'yes' : 'no');

/**
 * The form as the effective settings fill it: each text is the one in force, so a field left at its
 * default shows the default's text (the description, the llms.txt notes) and can be edited from there.
 */
export function formValues(s: EffectiveSettings): SettingsFormValues {
  const values = {} as SettingsFormValues;
  for (const name of SETTING_NAMES) {
    const field = SETTINGS[name].field;
    if (isText(name)) values[name] = { useOption: s.stored[name] === null, value: (s[name] as string | undefined) ?? builtIn(s, name) };
    else if (field.kind === 'choice') values[name] = choiceOf(field.unset, s.stored[name] as boolean | null);
    else values[name] = (s.stored[name] as string | null) ?? '';
  }
  return values;
}

/** The fields of the form in order, each with its value, for the template. */
export function formFields(values: SettingsFormValues): SettingsFormField[] {
  return SETTING_NAMES.map((name) => {
    const d = SETTINGS[name];
    return { name, label: d.label, help: d.help, group: 'group' in d ? d.group : undefined, field: d.field, value: values[name] };
  });
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
  const label = SETTINGS[name].label;
  const source = field(body, `${name}_source`) || 'options';
  if (source !== 'options' && source !== 'site') return { value: null, problem: `${label}: choose "Use the option from the code" or "Use this value"` };
  const text = normalised(field(body, name));
  const shown = normalised((formValues(current)[name] as TextFormValue).value);
  const own = (t: string) => (t === normalised(builtIn(current, name)) ? '' : t);
  if (source === 'site') return { value: own(text) };
  if (text === '' || text === shown) return { value: null };
  if (current.stored[name] === null) return { value: own(text) };
  return {
    value: null,
    problem: `${label} was changed, but "Use the option from the code" is chosen: choose "Use this value" to save the text, or leave the text as it was to use the option`,
  };
}

/** A choice field: its stored value, or the problem of a value the form does not offer. */
function readChoice(body: Record<string, unknown>, name: SettingName, unset: string): { value: boolean | null; problem?: string } {
  const choice = field(body, name) || unset;
  if (![unset, 'yes', 'no'].includes(choice)) return { value: null, problem: `${SETTINGS[name].label} must be "${unset}", "yes" or "no"` };
  return { value: choice === 'yes' ? true : choice === 'no' ? false : null };
}

/**
 * Reads the posted form (a text: `<name>_source` = `options` | `site` and `<name>`; a choice: `<name>`
 * = its unset value (`options` or `unset`) | `yes` | `no`; rules: `<name>`; a field left out is not set
 * here) into values to store, validated against the settings in force when the form was shown
 * (`current`): the cleaned values, or the problems, each a sentence naming its field once, with the
 * form to show again (long values cut to their limit).
 */
export function readSettingsForm(
  body: Record<string, unknown>,
  current: EffectiveSettings,
): { ok: true; value: StoredSettings } | { ok: false; problems: SettingProblem[]; form: SettingsFormValues } {
  const problems: SettingProblem[] = [];
  const input = {} as Record<SettingName, unknown>;
  const echo = {} as SettingsFormValues;
  for (const name of SETTING_NAMES) {
    const definition = SETTINGS[name].field;
    if (isText(name)) {
      const read = readText(body, name, current);
      if (read.problem) problems.push({ field: name, message: read.problem });
      input[name] = read.value;
      echo[name] = { useOption: read.value === null, value: field(body, name).slice(0, SETTINGS[name].field.max) };
    } else if (definition.kind === 'choice') {
      const read = readChoice(body, name, definition.unset);
      if (read.problem) problems.push({ field: name, message: read.problem });
      input[name] = read.value;
      echo[name] = choiceOf(definition.unset, read.value);
    } else {
      input[name] = field(body, name);
      echo[name] = field(body, name).slice(0, definition.max);
    }
  }
  const checked = validateSettings(input as StoredSettings);
  if (checked.ok && !problems.length) return { ok: true, value: checked.value };
  return { ok: false, problems: [...problems, ...(checked.ok ? [] : checked.problems)], form: echo };
}
