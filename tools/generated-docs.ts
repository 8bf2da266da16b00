import { contractReference } from '../src/db/contract-reference.js';
import { contentApiReference } from '../src/push/content-api-reference.js';
import { optionsReference } from '../src/options-reference.js';
import { settingsReference } from '../src/settings/settings-reference.js';
import { OPTIONS_SOURCE, optionsSourceWithComments } from './option-comments.js';

/**
 * The files generated from a definition in the source, by path from the repository root: reference
 * pages of docs/, and the options' doc comments copied from their descriptions.
 */
export const GENERATED_DOCS: Record<string, () => string> = {
  'docs/reference/content-api.md': contentApiReference,
  'docs/reference/content-contract.md': contractReference,
  'docs/reference/options.md': optionsReference,
  'docs/reference/settings.md': settingsReference,
  [OPTIONS_SOURCE]: optionsSourceWithComments,
};
