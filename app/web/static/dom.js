// @ts-check
// Building DOM nodes without innerHTML: text always goes in as text, never as markup.

/**
 * An attribute of el(): `class`, `text`, an `on<event>` listener, or any attribute (true for an
 * empty one; null, undefined and false leave it out).
 * @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} Attr
 */
/** @typedef {Node | string | number | boolean | null | undefined} Child */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, Attr>} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * The page's element with this id. The pages are static: every id looked up this way is in the
 * HTML (or was drawn before), so a missing one is a bug, told by name.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no element #${id}`);
  return node;
}

/**
 * The page's element with this id where it may not have been drawn (yet), else null.
 * @param {string} id
 * @returns {HTMLElement | null}
 */
export function findById(id) {
  return document.getElementById(id);
}

/**
 * The page's form field with this id (an input, a select or a text area; typed as an input,
 * whose `value` they all have).
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export function fieldById(id) {
  return /** @type {HTMLInputElement} */ (byId(id));
}

/**
 * The first element under `root` that `selector` matches, which the markup always holds.
 * @param {ParentNode} root
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function required(root, selector) {
  const node = root.querySelector(selector);
  if (!(node instanceof HTMLElement)) throw new Error(`the page has no element ${selector}`);
  return node;
}
