import { contractReference } from '../src/db/contract-reference.js';
import { optionsReference } from '../src/options-reference.js';

/** The pages of docs/ generated from a definition in the source, by path from the repository root. */
export const GENERATED_DOCS: Record<string, () => string> = {
  'docs/reference/content-contract.md': contractReference,
  'docs/reference/options.md': optionsReference,
};
