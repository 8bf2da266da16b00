/**
 * The worker-thread side of the conversion pool (`converter.ts`): the same bounded conversion the
 * main thread runs in process, on HTML composed there (its marker nonce travels with the task).
 */
import { boundedHtmlToMarkdown, type ConvertOptions } from './convert.js';
import type { MarkdownLimits } from './limits.js';

export interface ConversionTask {
  html: string;
  options: ConvertOptions;
  limits: MarkdownLimits;
}

export default function convertTask(task: ConversionTask): { markdown: string; complete: boolean } {
  return boundedHtmlToMarkdown(task.html, task.options, task.limits);
}
