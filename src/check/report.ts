import { z } from 'zod';

/**
 * One check's result, as `check --json` prints it and `runSiteChecks` returns it.
 *
 * ```json
 * { "id": "llms-txt", "name": "llms.txt", "ok": false, "skipped": false,
 *   "detail": "GET /llms.txt answered 404", "fix": "Serve /llms.txt in the llmstxt.org format: …" }
 * ```
 */
export const checkResultSchema = z
  .object({
    /** Stable identifier (`home-link-header`, `probes`, `private:42`, …). */
    id: z.string().min(1),
    /** What was checked, for people. */
    name: z.string().min(1),
    /** True when the check passed or did not apply. */
    ok: z.boolean(),
    /** True when the check did not apply (an MCP card the site does not advertise). */
    skipped: z.boolean(),
    /** What was found: the evidence on success, what is missing or wrong on failure. */
    detail: z.string(),
    /** How to fix a failure; null when the check passed. */
    fix: z.string().nullable(),
  })
  .strict();

/** The whole report: `ok` is true when every check is. */
export const checkReportSchema = z
  .object({
    /** The URL the checks started from (the site's home page). */
    url: z.string().url(),
    ok: z.boolean(),
    /** How many HTTP requests the checks made (never more than the configured maximum). */
    requests: z.number().int().nonnegative(),
    checks: z.array(checkResultSchema),
  })
  .strict();

export type CheckResult = z.infer<typeof checkResultSchema>;
export type CheckReport = z.infer<typeof checkReportSchema>;

/** A passed check. */
export const pass = (id: string, name: string, detail: string): CheckResult => ({ id, name, ok: true, skipped: false, detail, fix: null });

/** A failed check with its fix. */
export const fail = (id: string, name: string, detail: string, fix: string): CheckResult => ({ id, name, ok: false, skipped: false, detail, fix });

/** A check that does not apply to this site. */
export const skip = (id: string, name: string, detail: string): CheckResult => ({ id, name, ok: true, skipped: true, detail, fix: null });

/**
 * The report for people: one line per check (`✓`, `✗`, or `-` when skipped), the fix under each
 * failure, and a summary line.
 */
export function formatReport(report: CheckReport): string {
  const lines = [`Checking ${report.url} as agents see it`, ''];
  for (const c of report.checks) {
    const mark = c.skipped ? '-' : c.ok ? '✓' : '✗';
    lines.push(`${mark} ${c.name}: ${c.detail}`);
    if (c.fix) lines.push(`    fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => !c.ok).length;
  const skipped = report.checks.filter((c) => c.skipped).length;
  lines.push(
    '',
    `${report.checks.length} checks: ${report.checks.length - failed - skipped} passed, ${failed} failed` +
      `${skipped ? `, ${skipped} skipped` : ''} (${report.requests} requests)`,
    '',
  );
  return lines.join('\n');
}
