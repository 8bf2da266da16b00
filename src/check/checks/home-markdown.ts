import { checkName } from '../check-catalog.js';
import { ACCEPT, type CheckContext } from '../context.js';
import { linksWith, variesOnAccept } from '../page-view.js';
import { describeResponse, mediaType } from '../site-client.js';
import { fail, pass, type CheckOutcome } from '../report.js';

const NAME = checkName('home-markdown');
const FIX =
  'Answer / to agents that prefer Markdown with text/markdown (Vary: Accept) and advertise it (rel="alternate"; type="text/markdown"): ' +
  'with express-agent-discovery, the markdownHome option (on by default) with agent.router and agent.linkHeaders mounted before your home route.';

/** The home page advertises its Markdown, and `/` asked for as a coding agent asks answers with it. */
export async function checkHomeMarkdown(ctx: CheckContext): Promise<CheckOutcome> {
  const problems: string[] = [];
  const home = ctx.home!;
  if (!linksWith([...home.headerLinks, ...home.headLinks], 'alternate', 'text/markdown').length) problems.push('the home page advertises no Markdown alternate');
  const res = await ctx.client.fetch(ctx.homeUrl, { accept: ACCEPT.markdownAgent });
  if (res.error !== undefined || res.status !== 200) problems.push(`a Markdown-first Accept on / ${describeResponse(res)}`);
  else if (mediaType(res) !== 'text/markdown') problems.push(`a Markdown-first Accept on / got ${mediaType(res) || 'no Content-Type'}`);
  else if (!variesOnAccept(res.headers.get('vary') ?? '')) problems.push('the Markdown answer on / lacks Vary: Accept');
  return problems.length ? fail('home-markdown', NAME, problems.join('; '), FIX) : pass('home-markdown', NAME, 'advertised, and / answers a Markdown-first Accept with text/markdown (Vary: Accept)');
}
