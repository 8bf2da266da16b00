import { checkName } from '../check-catalog.js';
import { ACCEPT, type CheckContext } from '../context.js';
import { parseLlmsFile, ReferenceParseError } from '../llms-txt-reference.js';
import { describeResponse, mediaType } from '../site-client.js';
import { fail, pass, plural, type CheckOutcome } from '../report.js';

const NAME = checkName('llms-txt');
const FIX =
  'Serve /llms.txt (200, text/plain or text/markdown, no redirect): "# Title", a blank line, "> one-line summary", ' +
  'a plain paragraph, then "## Section" headings whose every line is "- [name](absolute URL): note".';

/** Lines inside a section that are not `- [name](url)` items (the reference parser only searches within a line). */
function strayLines(text: string): string[] {
  const afterFirstSection = text.split(/^##[^\n]*$/m).slice(1);
  return afterFirstSection
    .flatMap((body) => body.split('\n'))
    .filter((line) => line.trim() && !/^- \[[^\]]+\]\([^)\s]+\)(?::.*)?$/.test(line.trim()));
}

/** `/llms.txt`: answered directly, read by the reference grammar with its summary, every link absolute. */
export async function checkLlmsTxt(ctx: CheckContext): Promise<CheckOutcome> {
  const head = ctx.probes?.get('/llms.txt');
  const res = await ctx.client.fetch('/llms.txt', { accept: ACCEPT.markdown });
  if (res.error !== undefined || res.status !== 200) return fail('llms-txt', NAME, `GET /llms.txt ${describeResponse(res)}`, FIX);
  const problems: string[] = [];
  if (head && (head.error !== undefined || head.status < 200 || head.status >= 300)) problems.push(`HEAD ${describeResponse(head)}`);
  if (!['text/plain', 'text/markdown'].includes(mediaType(res))) problems.push(`served as ${mediaType(res) || 'no Content-Type'}`);
  let parsed;
  try {
    parsed = parseLlmsFile(res.body);
  } catch (error) {
    if (!(error instanceof ReferenceParseError)) throw error;
    problems.push(`the reference parser fails: ${error.message}`);
  }
  ctx.llms = { url: res.url, text: res.body, ...(parsed ? { parsed } : {}) };
  if (parsed) {
    if (parsed.summary === null) problems.push('the reference parser finds no "> summary" (it needs a blank line and a paragraph after it, before the first "##")');
    const sections = Object.keys(parsed.sections);
    if (!sections.length) problems.push('no "##" section of links');
    const relative = Object.values(parsed.sections)
      .flat()
      .filter((l) => !/^https?:\/\//i.test(l.url));
    if (relative.length) problems.push(`links that are not absolute URLs: ${relative.slice(0, 3).map((l) => l.url).join(', ')}`);
  }
  const stray = strayLines(res.body);
  if (stray.length) problems.push(`section lines that are not "- [name](url)" items: ${stray.slice(0, 3).map((l) => JSON.stringify(l.slice(0, 60))).join(', ')}`);
  if (problems.length || !parsed) return fail('llms-txt', NAME, problems.join('; '), FIX);
  const links = Object.values(parsed.sections).flat().length;
  return pass('llms-txt', NAME, `"${parsed.title}": summary, ${plural(Object.keys(parsed.sections).length, 'section', 'sections')}, ${plural(links, 'link', 'links')}`);
}
