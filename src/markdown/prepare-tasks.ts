/**
 * Task lists in the DOM pre-pass: a task's state wherever the editor keeps it (a checkbox input,
 * Notion's `checkbox-on`/`checkbox-off` element, Confluence's `li.checked` or
 * `data-inline-task-status`) becomes one marked checkbox at the start of its item, which the task rule
 * writes as `[x] ` or `[ ] `.
 */
import { classesOf, createElement, elementChildren, type DomElement } from './html-dom.js';

/** Marks a checkbox as a task's state for the task rule. */
export const markTask = (input: DomElement, checked: boolean): void => input.setAttribute('data-agent-task', checked ? 'x' : ' ');

const taskCheckbox = (doc: DomElement['ownerDocument'], checked: boolean): DomElement => {
  const input = createElement(doc, 'input', [], checked ? { type: 'checkbox', checked: '' } : { type: 'checkbox' });
  markTask(input, checked);
  return input;
};

/** Notion's checkbox element (`div.checkbox.checkbox-on`) in a list item: replaced by a marked checkbox; false when `el` is not one. */
export function replaceTaskCheckbox(el: DomElement, classes: readonly string[]): boolean {
  const on = classes.includes('checkbox-on');
  if (!on && !classes.includes('checkbox-off')) return false;
  el.replaceWith(taskCheckbox(el.ownerDocument, on));
  return true;
}

const DONE_STATUS = /^(?:complete|completed|checked|done|true)$/i;

/** Confluence's inline task list (`ul.inline-task-list`): each item gets a marked checkbox for its state. */
export function markInlineTasks(list: DomElement): void {
  for (const item of elementChildren(list)) {
    if (item.nodeName !== 'LI') continue;
    const checked = classesOf(item).includes('checked') || DONE_STATUS.test(item.getAttribute('data-inline-task-status') ?? '');
    item.insertBefore(taskCheckbox(list.ownerDocument, checked), item.firstChild);
  }
}
