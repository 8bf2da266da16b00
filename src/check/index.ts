export {
  runSiteChecks,
  siteCheckUsageError,
  schemeHint,
  SiteUnreachableError,
  CHECK_MAX_BODY_BYTES,
  DEFAULT_MAX_REQUESTS,
  DEFAULT_TIMEOUT_MS,
  MAX_HIDDEN,
} from './run-site-checks.js';
export type { SiteCheckOptions, HiddenRef, HiddenKind } from './run-site-checks.js';
export {
  checkReportSchema,
  checkResultSchema,
  formatReport,
  readinessScore,
  reportSummary,
  plural,
  CHECK_STATUSES,
  type CheckReport,
  type CheckResult,
  type CheckStatus,
} from './report.js';
export { CHECK_CATALOG, HIDDEN_CHECK_WEIGHT, type CheckId } from './check-catalog.js';
export { CONVENTIONAL_PATHS } from './checks/probes.js';
export { parseLlmsFile, ReferenceParseError, type ReferenceLlmsFile, type ReferenceLink } from './llms-txt-reference.js';
