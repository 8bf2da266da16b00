import { contractReference } from '../src/db/contract-reference.js';
import { optionsReference } from '../src/options-reference.js';
import { OPTIONS_SOURCE, optionsSourceWithComments } from './option-comments.js';

/**
 * The files generated from a definition in the source, by path from the repository root: reference
 * pages of docs/, and the options' doc comments copied from their descriptions.
 */
export const GENERATED_DOCS: Record<string, () => string> = {
  'docs/reference/content-contract.md': contractReference,
  'docs/reference/options.md': optionsReference,
  [OPTIONS_SOURCE]: optionsSourceWithComments,
};
