/**
 * The llmstxt.org reference parser port: the tests read llms.txt with the same code the shipped
 * `check` command uses (src/check/llms-txt-reference.ts).
 */
export { parseLink, parseLlmsFile, ReferenceParseError, type ReferenceLink, type ReferenceLlmsFile } from '../../src/check/llms-txt-reference.js';
