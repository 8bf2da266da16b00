import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { optionRows } from '../src/options-reference.js';

/** The file whose option properties carry a doc comment copied from their description. */
export const OPTIONS_SOURCE = 'src/options.ts';
const WIDTH = 120;

/** An option's doc comment at `indent`: its description, wrapped, then its default (or "Required."). */
function docComment(description: string, defaultText: string, indent: string): string {
  if (description.includes('*/') || defaultText.includes('*/')) throw new TypeError(`a description cannot hold "*/": ${description}`);
  const tail = defaultText === 'required' ? 'Required.' : `@default ${defaultText}`;
  const oneLine = `/** ${description}. ${tail} */`;
  if (indent.length + oneLine.length <= WIDTH) return oneLine;
  const lines: string[] = [];
  let line = '';
  for (const word of description.split(' ')) {
    if (line && indent.length + 3 + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(`${line}.`, tail);
  return ['/**', ...lines.map((l) => `${indent} * ${l}`), `${indent} */`].join('\n');
}

/** The `description` string of an `x.register(optionDocs, { description, … })` initializer, if it is one. */
function registeredDescription(initializer: ts.Expression): string | undefined {
  if (!ts.isCallExpression(initializer) || !ts.isPropertyAccessExpression(initializer.expression)) return undefined;
  const [registry, meta] = initializer.arguments;
  if (initializer.expression.name.text !== 'register' || registry?.getText() !== 'optionDocs' || !meta || !ts.isObjectLiteralExpression(meta)) return undefined;
  const description = meta.properties.find((p) => p.name?.getText() === 'description');
  return description && ts.isPropertyAssignment(description) && ts.isStringLiteralLike(description.initializer) ? description.initializer.text : undefined;
}

/**
 * `src/options.ts` with the doc comment of every documented option written from its description and
 * default, so that an editor shows them on `AgentDiscoveryOptions` (zod's inferred types keep the
 * comments of the shape's properties). The text is written once, in the schema; `npm run docs` copies it.
 */
export function optionsSourceWithComments(text = readFileSync(OPTIONS_SOURCE, 'utf8')): string {
  const defaults = new Map(optionRows().map((row) => [row.description, row.default]));
  const source = ts.createSourceFile(OPTIONS_SOURCE, text, ts.ScriptTarget.Latest, true);
  const edits: Array<{ from: number; to: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    const description = ts.isPropertyAssignment(node) ? registeredDescription(node.initializer) : undefined;
    if (description !== undefined) {
      const defaultText = defaults.get(description);
      if (defaultText === undefined) throw new TypeError(`no option of the schema has the description ${description}`);
      const start = node.getStart(source);
      const indent = text.slice(text.lastIndexOf('\n', start - 1) + 1, start);
      const previous = ts.getLeadingCommentRanges(text, node.pos)?.at(-1);
      const comment = docComment(description, defaultText, indent);
      if (previous && text.startsWith('/**', previous.pos)) edits.push({ from: previous.pos, to: previous.end, text: comment });
      else edits.push({ from: start, to: start, text: `${comment}\n${indent}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = text;
  for (const edit of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, edit.from) + edit.text + out.slice(edit.to);
  return out;
}
