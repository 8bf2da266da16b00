/**
 * The DOM the conversion works on: domino's, the parser turndown itself uses, typed structurally
 * (only the members read here), parsed once per conversion and handed to turndown as a node.
 */
import { createRequire } from 'node:module';

export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  textContent: string | null;
  readonly parentNode: DomElement | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly firstChild: DomNode | null;
  readonly lastChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly previousSibling: DomNode | null;
  remove(): void;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly children: ArrayLike<DomElement>;
  readonly firstElementChild: DomElement | null;
  readonly previousElementSibling: DomElement | null;
  readonly ownerDocument: DomDocument;
  /** A `<template>`'s content. */
  readonly content?: { readonly childNodes: ArrayLike<DomNode> };
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  getElementsByTagName(name: string): ArrayLike<DomElement>;
  appendChild(node: DomNode): DomNode;
  insertBefore(node: DomNode, before: DomNode | null): DomNode;
  replaceWith(...nodes: DomNode[]): void;
  cloneNode(deep: boolean): DomElement;
}

export interface DomDocument {
  createElement(name: string): DomElement;
  createTextNode(text: string): DomNode;
  getElementById(id: string): DomElement | null;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export const isElement = (node: DomNode | null | undefined): node is DomElement => node?.nodeType === ELEMENT_NODE;

/** domino, resolved from turndown's own package so that it is the copy turndown parses with. */
const domino = createRequire(createRequire(import.meta.url).resolve('turndown'))('@mixmark-io/domino') as {
  createDocument(html: string): DomDocument;
};

const ROOT_ID = 'turndown-root';

/** Parses HTML as turndown does (inside one wrapper element, so nothing moves to `<head>`); the wrapper. */
export function parseHtmlFragment(html: string): DomElement {
  return domino.createDocument(`<x-turndown id="${ROOT_ID}">${html}</x-turndown>`).getElementById(ROOT_ID)!;
}

/** The element's class list (an empty list when it has none). */
export const NO_CLASSES: readonly string[] = Object.freeze([]);

export const classesOf = (el: DomElement): readonly string[] => {
  const value = el.getAttribute('class');
  return value ? value.split(/\s+/).filter(Boolean) : NO_CLASSES;
};

export const hasClass = (el: DomElement, name: string): boolean => classesOf(el).includes(name);

/** The element children of `el`, as a fixed array (safe to mutate the DOM while iterating). */
export function elementChildren(el: DomElement): DomElement[] {
  const out: DomElement[] = [];
  for (let child = el.firstChild; child; child = child.nextSibling) if (isElement(child)) out.push(child);
  return out;
}

/**
 * The descendant elements of `el` named `nodeName`, in document order, as a fixed array: a walk over
 * sibling pointers (domino's `getElementsByTagName` builds a live list, several times the cost).
 */
export function descendantsNamed(el: DomElement, nodeName: string): DomElement[] {
  const out: DomElement[] = [];
  const visit = (parent: DomNode) => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (!isElement(child)) continue;
      if (child.nodeName === nodeName) out.push(child);
      if (child.firstChild) visit(child);
    }
  };
  visit(el);
  return out;
}

/** A new element with the given children (elements, or strings as text). */
export function createElement(doc: DomDocument, name: string, children: (DomNode | string)[] = [], attributes: Record<string, string> = {}): DomElement {
  const el = doc.createElement(name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, value);
  for (const child of children) el.appendChild(typeof child === 'string' ? doc.createTextNode(child) : child);
  return el;
}

/** The first descendant of `el` (or `el` itself) matching `test`, depth first. */
export function findElement(el: DomElement, test: (e: DomElement) => boolean): DomElement | undefined {
  if (test(el)) return el;
  for (const child of elementChildren(el)) {
    const found = findElement(child, test);
    if (found) return found;
  }
  return undefined;
}

/** Text with runs of whitespace collapsed to one space, trimmed. */
export const squashText = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();
