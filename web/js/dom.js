// Building DOM nodes without innerHTML: user-provided strings only ever become text nodes.
// @ts-check

/** Attributes, `text`, `class`, `dataset` and on* listeners (see assign). */
/** @typedef {{[key: string]: any}} Props */
/** A child: a node, or anything shown as text; null, undefined and false are skipped; arrays
 *  are flattened. */
/** @typedef {Node | string | number | boolean | null | undefined | any[]} Child */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** @param {HTMLElement | SVGElement} node @param {Props | null | undefined} props */
function assign(node, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.setAttribute('class', value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
}

/** @param {Element} node @param {Child[]} children */
function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** h('td', {class: 'num'}, 'text', otherNode): the element of the tag's type (h('input')
 *  is an HTMLInputElement).
 *  @template {string} K
 *  @param {K} tag @param {Props | null} [props] @param {...Child} children
 *  @returns {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement} */
export function h(tag, props, ...children) {
  const node = document.createElement(tag);
  assign(node, props);
  append(node, children);
  return /** @type {any} */ (node); // createElement's own overloads, for the generic tag
}

/** The same for SVG elements.
 *  @param {string} tag @param {Props | null} [props] @param {...Child} children
 *  @returns {SVGElement} */
export function s(tag, props, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  assign(node, props);
  append(node, children);
  return node;
}

/** Replaces all children of `node`. @param {Element} node @param {...Child} children */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/** Makes the children of `node` what replace(node, ...children) would leave, keeping every
 *  node already there that has the same tag (its attributes and text patched): a redraw of
 *  figures that changed changes their text, and the browser lays out and paints only that.
 *  For parts without listeners on their nodes (a kept node keeps the old one's listeners).
 *  @param {Element} node @param {...Child} children */
export function morph(node, ...children) {
  const next = document.createDocumentFragment();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    next.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  patchChildren(node, [...next.childNodes]);
}

/** @param {Node} parent @param {ChildNode[]} wanted */
function patchChildren(parent, wanted) {
  wanted.forEach((want, i) => {
    const have = parent.childNodes[i];
    if (!have) parent.appendChild(want);
    else if (!patchNode(have, want)) parent.replaceChild(want, have);
  });
  while (parent.childNodes.length > wanted.length) parent.lastChild?.remove();
}

/** Patches `have` into `want` when both are text, or elements of one tag; false otherwise.
 *  @param {ChildNode} have @param {ChildNode} want @returns {boolean} */
function patchNode(have, want) {
  if (have instanceof Text && want instanceof Text) {
    if (have.data !== want.data) have.data = want.data;
    return true;
  }
  if (!(have instanceof Element && want instanceof Element)) return false;
  if (have.namespaceURI !== want.namespaceURI || have.tagName !== want.tagName) return false;
  for (const { name, value } of [...want.attributes]) {
    if (have.getAttribute(name) !== value) have.setAttribute(name, value);
  }
  for (const { name } of [...have.attributes]) {
    if (!want.hasAttribute(name)) have.removeAttribute(name);
  }
  patchChildren(have, [...want.childNodes]);
  return true;
}

/** @param {string} id */
export const byId = (id) => document.getElementById(id);

/** Writes `text` into `node` when it differs; a lone text node's data is changed in place
 *  (the cell keeps its layout object, and the table's redraw stays a text change).
 *  @param {Node} node @param {string} text */
export function setText(node, text) {
  const only = node.firstChild;
  if (only instanceof Text && only === node.lastChild) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}
