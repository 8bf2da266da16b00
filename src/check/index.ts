export { runSiteChecks, siteCheckUsageError, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REQUESTS, DEFAULT_TIMEOUT_MS, MAX_HIDDEN } from './run-site-checks.js';
export type { SiteCheckOptions, HiddenRef, HiddenKind } from './run-site-checks.js';
export { checkReportSchema, checkResultSchema, formatReport, type CheckReport, type CheckResult } from './report.js';
export { CONVENTIONAL_PATHS } from './checks/probes.js';
export { parseLlmsFile, ReferenceParseError, type ReferenceLlmsFile, type ReferenceLink } from './llms-txt-reference.js';
