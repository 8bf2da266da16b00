import { SETTINGS, SETTING_NAMES, type SettingField } from './settings-schema.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** How the form edits a field, in words. */
function editedAs(field: SettingField): string {
  if (field.kind === 'text') return `text, at most ${field.max} characters`;
  if (field.kind === 'rules') return `\`Allow:\`/\`Disallow:\` lines, at most ${field.max} characters`;
  return 'yes / no / not set here';
}

/** A built-in value in words. */
const builtInText = (value: unknown): string => (value === undefined ? 'none' : typeof value === 'string' ? `\`${value}\`` : `\`${String(value)}\``);

/**
 * `docs/reference/settings.md`: every run-time setting of the admin page, from `SETTINGS` (the one
 * definition), with its field, the factory option it overrides and its built-in default.
 */
export function settingsReference(): string {
  const rows = SETTING_NAMES.map((name) => {
    const d = SETTINGS[name];
    return `| \`${name}\` | ${cell(d.label)} | ${cell(d.help)} | ${cell(editedAs(d.field))} | ${d.option ? `\`${cell(d.option)}\`` : 'none'} | ${cell(builtInText(d.builtIn))} |`;
  });
  return [
    '# Run-time settings reference',
    '',
    '<!-- Generated from SETTINGS in src/settings/settings-schema.ts by `npm run docs`; edit the definition, not this file. -->',
    '',
    'The settings an administrator changes on the admin page\'s Settings form, without a restart. Each',
    'setting in force is the value stored on the Settings page, else the factory option it overrides, else',
    'its built-in default. They are stored in the one row of `agent_discovery_settings`, as a JSON object',
    'with a member per setting set there (a missing member is "not set here"; an empty text is "set to',
    'nothing"); a trigger gives the row a new `version` on every write, which every snapshot of the',
    'settings carries (see [the architecture](../architecture.md)). Adding a setting is one entry in',
    '`SETTINGS` plus its use: the form, its limits and messages, the overview table and this page follow.',
    '',
    '| Setting | Label | What it does | Edited as | Overrides option | Built-in default |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
