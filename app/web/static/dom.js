// @ts-check
// Building DOM nodes without innerHTML: text always goes in as text, never as markup.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * The page's element with this id (the pages are static: every id looked up is in the HTML).
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * The page's form field with this id (an input, a select or a text area).
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export function fieldById(id) {
  return /** @type {HTMLInputElement} */ (document.getElementById(id));
}
