import { z } from 'zod';

/** What became of one check. */
export const CHECK_STATUSES = ['passed', 'failed', 'skipped', 'not_applicable'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/**
 * One check's result, as `check --json` prints it and `runSiteChecks` returns it.
 *
 * ```json
 * { "id": "llms-txt", "name": "llms.txt", "status": "failed", "weight": 10,
 *   "detail": "GET /llms.txt answered 404", "fix": "Serve /llms.txt in the llmstxt.org format: …", "because": null }
 * ```
 */
export const checkResultSchema = z
  .object({
    /** Stable identifier (`home-link-header`, `probes`, `private:42`, …). */
    id: z.string().min(1),
    /** What was checked, for people. */
    name: z.string().min(1),
    /**
     * `passed`; `failed`; `skipped` (nothing to check, or `because` another check failed);
     * `not_applicable` (the check does not concern this site, e.g. OAuth metadata for an anonymous API).
     */
    status: z.enum(CHECK_STATUSES),
    /** The check's share of the readiness score. */
    weight: z.number().int().positive(),
    /** What was found: the evidence on success, what is missing or wrong on failure, why it was skipped. */
    detail: z.string(),
    /** One sentence on what to do (naming the plugin option where it is the plugin's), for a failed check; null otherwise. */
    fix: z.string().nullable(),
    /** For a check skipped because another failed: that check's id (the root cause, reported once). */
    because: z.string().nullable(),
  })
  .strict();

/** The whole report: `ok` is true when no check failed; `score` is the readiness score (see `readinessScore`). */
export const checkReportSchema = z
  .object({
    /** The URL the checks started from (the site's home page). */
    url: z.string().url(),
    ok: z.boolean(),
    /** 0 to 100. */
    score: z.number().int().min(0).max(100),
    /** When the checks ran (ISO 8601). */
    ranAt: z.string().datetime(),
    /** How many HTTP requests the checks made (never more than the configured maximum). */
    requests: z.number().int().nonnegative(),
    checks: z.array(checkResultSchema),
  })
  .strict();

export type CheckResult = z.infer<typeof checkResultSchema>;
export type CheckReport = z.infer<typeof checkReportSchema>;

/** The facts of a check before its weight is attached (`runSiteChecks` adds it from `CHECK_WEIGHTS`). */
export type CheckOutcome = Omit<CheckResult, 'weight'>;

/** A passed check. */
export const pass = (id: string, name: string, detail: string): CheckOutcome => ({ id, name, status: 'passed', detail, fix: null, because: null });

/** A failed check with its fix. */
export const fail = (id: string, name: string, detail: string, fix: string): CheckOutcome => ({ id, name, status: 'failed', detail, fix, because: null });

/** A check with nothing to check on this site (it counts neither for nor against the score). */
export const skip = (id: string, name: string, detail: string): CheckOutcome => ({ id, name, status: 'skipped', detail, fix: null, because: null });

/** A check that does not concern this site. */
export const notApplicable = (id: string, name: string, detail: string): CheckOutcome => ({ id, name, status: 'not_applicable', detail, fix: null, because: null });

/** A check that could not run because `root` failed: skipped, pointing at the root cause (whose fix is given once, there). */
export const blocked = (id: string, name: string, root: CheckOutcome): CheckOutcome => ({
  id,
  name,
  status: 'skipped',
  detail: root.because === null ? `because "${root.name}" failed` : root.detail,
  fix: null,
  because: root.because ?? root.id,
});

/**
 * The readiness score, 0 to 100: the weight of the passed checks over the weight of the checks that
 * count, rounded down (100 only when every counted check passed). A check counts when it passed,
 * failed, or was skipped because another check failed (it cannot pass until that is fixed); a check
 * skipped with nothing to check and a check that does not apply count neither way.
 *
 * ```ts
 * readinessScore([{ status: 'passed', weight: 10 }, { status: 'failed', weight: 5 }, { status: 'skipped', weight: 5, because: 'page' }]) // 50
 * ```
 */
export function readinessScore(checks: readonly Pick<CheckResult, 'status' | 'weight' | 'because'>[]): number {
  const counted = checks.filter((c) => c.status === 'passed' || c.status === 'failed' || (c.status === 'skipped' && c.because !== null));
  const total = counted.reduce((sum, c) => sum + c.weight, 0);
  if (!total) return 0;
  const passed = counted.filter((c) => c.status === 'passed').reduce((sum, c) => sum + c.weight, 0);
  return Math.floor((100 * passed) / total);
}

const MARKS: Record<CheckStatus, string> = { passed: '✓', failed: '✗', skipped: '-', not_applicable: '·' };

/** `1 entry`, `2 entries`: a count with its noun in the right number. */
export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The summary line: the score, then the count of each status. */
export function reportSummary(report: CheckReport): string {
  const count = (s: CheckStatus) => report.checks.filter((c) => c.status === s).length;
  const parts = [`${count('passed')} passed`, `${count('failed')} failed`];
  if (count('skipped')) parts.push(`${count('skipped')} skipped`);
  if (count('not_applicable')) parts.push(`${count('not_applicable')} not applicable`);
  return `Readiness score ${report.score}/100 · ${plural(report.checks.length, 'check', 'checks')}: ${parts.join(', ')} (${plural(report.requests, 'request', 'requests')})`;
}

/**
 * The report for people: one line per check (`✓` passed, `✗` failed, `-` skipped, `·` not
 * applicable), the fix under each failure, and the score.
 */
export function formatReport(report: CheckReport): string {
  const lines = [`Checking ${report.url} as agents see it`, ''];
  for (const c of report.checks) {
    lines.push(`${MARKS[c.status]} ${c.name}: ${c.detail}`);
    if (c.status === 'failed' && c.fix) lines.push(`    fix: ${c.fix}`);
  }
  lines.push('', reportSummary(report), '');
  return lines.join('\n');
}
