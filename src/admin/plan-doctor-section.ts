import type { AccessNotice } from '../content/access-notices.js';
import { findingText, summaryText, type PlanReport } from '../content/plan-doctor.js';

/**
 * The admin's "Query plans" page: the plan doctor's report (`diagnosePlans`), run when the page is
 * opened. A template of the admin's own environment (autoescaped, extending the admin layout like
 * every admin page); no script, and the ANALYZE run is a plain GET form.
 */
export const PLANS_PAGE = {
  source: `{% extends "agent_admin_layout.njk" %}
{% block title %}Query plans{% endblock %}
{% block main %}
<h1>Query plans</h1>
<p>EXPLAIN{% if analyzed %} ANALYZE{% endif %} of the statements agents' reads run most, against this database's schema as it is now.
A sequential scan of a relation, or a sort, of more than {{ threshold }} rows makes a page cost the whole table; each is listed with the index that fixes it.</p>
<form method="get" action="{{ admin.path }}/plans"><input type="hidden" name="analyze" value="1"><button>Run with EXPLAIN ANALYZE</button> (runs the reads, each within {{ timeoutSeconds }} s)</form>
<p role="{{ 'status' if ok else 'alert' }}" id="summary">{{ summary }}</p>
{% if accessNotices.length %}
<h2>Hidden: access rules the content's recipe cannot follow</h2>
<p role="alert" id="access-notices">What these rules govern is not served (fail closed) until the rule is one the recipe translates:</p>
<ul>{% for n in accessNotices %}<li><strong>{{ n.subject }}</strong>: {{ n.notice }}</li>{% endfor %}</ul>
{% endif %}
{% if fixes.length %}
<h2>Indexes to create</h2>
<pre id="fixes">{% for f in fixes %}{{ f.create }};
{% endfor %}</pre>
{% for f in fixes %}{% if f.note %}<p>{{ f.note }}.</p>{% endif %}{% endfor %}
{% endif %}
<h2>Statements</h2>
<table id="plans">
<thead><tr><th>Statement</th><th>Result</th><th>Plan (top nodes)</th></tr></thead>
<tbody>
{% for s in statements %}<tr id="plan-{{ s.name }}"><td>{{ s.title }}<br><code>{{ s.name }}</code>
<details><summary>SQL</summary><pre>{{ s.sql }}</pre></details></td>
<td class="{{ 'ok' if s.ok else 'bad' }}">{% if s.error %}EXPLAIN failed: {{ s.error }}{% elif s.ok %}index reads{% else %}<ul>{% for f in s.findings %}<li>{{ f }}</li>{% endfor %}</ul>
{% for f in s.fixes %}<p>Fix: <code>{{ f.create }}</code> ({{ f.serves }})</p>{% else %}<p>No index of the content contract covers these relations.</p>{% endfor %}{% endif %}</td>
<td><pre>{{ s.plan }}</pre></td></tr>
{% endfor %}
</tbody>
</table>
{% endblock %}
`,
} as const;

/**
 * What {@link PLANS_PAGE} shows of a report (text only: the template escapes it), with what a
 * views-road recipe hides because it cannot follow the CMS's access rule (`access_notice`).
 */
export function plansPageVars(report: PlanReport, timeoutMs: number, accessNotices: readonly AccessNotice[] = []) {
  return {
    accessNotices,
    ok: report.ok,
    analyzed: report.analyzed,
    threshold: report.threshold,
    timeoutSeconds: timeoutMs / 1000,
    summary: summaryText(report),
    fixes: report.fixes,
    statements: report.statements.map((s) => ({
      name: s.name,
      title: s.title,
      sql: s.sql,
      ok: s.error === undefined && !s.findings.length,
      error: s.error,
      plan: s.plan.map((line) => `${'  '.repeat(line.depth)}${line.text}`).join('\n'),
      findings: s.findings.map(findingText),
      fixes: s.fixes,
    })),
  };
}
