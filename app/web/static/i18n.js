// @ts-check
// Every text the pages show comes from one message catalogue per language (i18n/<lang>.json).
// A message is a string with {placeholders}, or, where a count decides the words, an object of
// Intl.PluralRules categories ("zero", "one", "two", "few", "many", "other") chosen by `count`.
// Numbers are written with Intl.NumberFormat, names are isolated (<bdi>, or U+2068/U+2069 inside
// attributes) so a right-to-left name never reorders the figures beside it.
import { el } from "./dom.js";

/** @typedef {{code: string, name: string, dir?: "rtl"}} Language */
/**
 * A message: a string, or the words for each plural category of `count`.
 * @typedef {string | Partial<Record<Intl.LDMLPluralRule, string>>} Message
 */
/** @typedef {Record<string, Message>} Catalogue */
/** @typedef {{name: string}} Named a person's or a bot's name (nm()) */
/**
 * What a message's {placeholder} is given: numbers are written in the page's language, names
 * isolated, nodes put in as they are.
 * @typedef {string | number | boolean | Node | Named | null | undefined} Param
 */
/** @typedef {Record<string, Param>} Params */

/** @type {Language[]} */
export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "ar", name: "العربية", dir: "rtl" },
  { code: "zu", name: "isiZulu" },
  { code: "sw", name: "Kiswahili" },
  { code: "si", name: "සිංහල" },
  { code: "tl", name: "Tagalog" },
  { code: "gu", name: "ગુજરાતી" },
];
const LANG_KEY = "basra:lang";
// Browsers name some of these languages with other tags: Filipino is Tagalog's standard form.
/** @type {Record<string, string>} */
const ALIASES = { fil: "tl" };

/**
 * @type {{lang: string, messages: Catalogue, fallback: Catalogue,
 *   plural: Intl.PluralRules | null, number: Intl.NumberFormat | null}}
 */
const state = { lang: "en", messages: {}, fallback: {}, plural: null, number: null };

/**
 * The page language's plural rules and number format, which initI18n() sets up first.
 * @returns {{plural: Intl.PluralRules, number: Intl.NumberFormat}}
 */
function formats() {
  const { plural, number } = state;
  if (!plural || !number) throw new Error("initI18n() has not loaded the catalogue yet");
  return { plural, number };
}

export function language() {
  return state.lang;
}

/** @returns {"ltr" | "rtl"} */
export function direction(code = state.lang) {
  return LANGUAGES.find((l) => l.code === code)?.dir || "ltr";
}

// The stored choice, else the first of the browser's languages that has a catalogue, else English.
/**
 * @param {string | null} stored
 * @param {readonly string[] | null | undefined} preferred
 * @returns {string}
 */
export function pickLanguage(stored, preferred) {
  const known = (/** @type {string} */ code) => LANGUAGES.some((l) => l.code === code);
  if (stored && known(stored)) return stored;
  for (const tag of preferred || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    const code = ALIASES[primary] || primary;
    if (known(code)) return code;
  }
  return "en";
}

/**
 * @param {string} code
 * @returns {Promise<Catalogue>}
 */
async function load(code) {
  const response = await fetch(`/static/web/i18n/${code}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`no catalogue for ${code}`);
  return response.json();
}

// Loads the catalogue, sets <html lang dir>, translates the page's static text and puts the
// language switch into the header. Every page awaits this before drawing anything.
export async function initI18n() {
  let stored = null;
  try {
    stored = localStorage.getItem(LANG_KEY);
  } catch (err) {
    stored = null;
  }
  const code = pickLanguage(stored, navigator.languages || [navigator.language]);
  state.fallback = await load("en");
  state.messages = code === "en" ? state.fallback : await load(code).catch(() => state.fallback);
  state.lang = state.messages === state.fallback ? "en" : code;
  state.plural = new Intl.PluralRules(state.lang);
  state.number = new Intl.NumberFormat(state.lang);
  document.documentElement.lang = state.lang;
  document.documentElement.dir = direction();
  translatePage(document);
  addSwitch();
}

/** @param {string} code */
export function setLanguage(code) {
  localStorage.setItem(LANG_KEY, code);
  location.reload(); // every text of the page is drawn again in the new language
}

function addSwitch() {
  const bar = document.querySelector(".topbar");
  if (!bar || bar.querySelector("#lang")) return;
  const select = el("select", { id: "lang", class: "lang", "aria-label": t("header.language") },
    ...LANGUAGES.map((l) => el("option", { value: l.code, lang: l.code, selected: l.code === state.lang, text: l.name })));
  select.addEventListener("change", () => setLanguage(select.value));
  bar.append(select);
}

/**
 * @param {string} key
 * @returns {Message | null}
 */
function lookup(key) {
  if (Object.prototype.hasOwnProperty.call(state.messages, key)) return state.messages[key];
  if (Object.prototype.hasOwnProperty.call(state.fallback, key)) return state.fallback[key];
  return null;
}

/** @param {string} key */
export function has(key) {
  return lookup(key) !== null;
}

/**
 * A number in the page's language; anything else as text.
 * @param {unknown} value
 * @param {Intl.NumberFormatOptions} [options]
 * @returns {string}
 */
export function num(value, options) {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value ?? "");
  return options ? new Intl.NumberFormat(state.lang, options).format(value) : formats().number.format(value);
}

/**
 * @param {string} key
 * @param {Params} params
 * @returns {string}
 */
function template(key, params) {
  const message = lookup(key);
  if (message === null) return key;
  if (typeof message === "string") return message;
  const count = Number(params.count ?? 0);
  return message[formats().plural.select(count)] ?? message.other ?? "";
}

/**
 * @param {string} key
 * @param {Params} params
 */
function parts(key, params) {
  return template(key, params).split(/(\{[a-zA-Z_]+\})/).filter((p) => p !== "");
}

/**
 * @param {Params} params
 * @param {string} name
 * @returns {Param}
 */
function value(params, name) {
  const raw = params[name];
  return typeof raw === "number" ? num(raw) : raw;
}

// A message as a string; names inside it are wrapped in Unicode isolates.
/**
 * @param {string} key
 * @param {Params} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  return parts(key, params).map((part) => {
    const match = /^\{([a-zA-Z_]+)\}$/.exec(part);
    if (!match || !(match[1] in params)) return part;
    const inner = value(params, match[1]);
    if (inner instanceof Node) return inner.textContent;
    if (inner && typeof inner === "object" && "name" in inner) return isolate(inner.name);
    return String(inner ?? "");
  }).join("");
}

// A message as nodes for el(): names become <bdi> elements, nodes are put in as they are.
/**
 * @param {string} key
 * @param {Params} [params]
 * @returns {(string | Node)[]}
 */
export function tx(key, params = {}) {
  return parts(key, params).map((part) => {
    const match = /^\{([a-zA-Z_]+)\}$/.exec(part);
    if (!match || !(match[1] in params)) return part;
    const inner = value(params, match[1]);
    if (inner instanceof Node) return inner;
    if (inner && typeof inner === "object" && "name" in inner) return el("bdi", { text: inner.name });
    return String(inner ?? "");
  });
}

// A person's or a bot's name as a parameter of t()/tx().
/**
 * @param {string | null | undefined} name
 * @returns {Named}
 */
export function nm(name) {
  return { name: String(name ?? "") };
}

/** @param {string} text */
export function isolate(text) {
  return `\u2068${text}\u2069`;
}

// Static text of the HTML: data-i18n="key" sets the text, data-i18n-attr="attr=key;attr=key"
// sets attributes.
/** @param {ParentNode} root */
export function translatePage(root) {
  // The selectors match only elements that carry the attribute read.
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n]"))) {
    node.textContent = t(/** @type {string} */ (node.dataset.i18n));
  }
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n-attr]"))) {
    for (const pair of /** @type {string} */ (node.dataset.i18nAttr).split(";")) {
      const [attr, key] = pair.split("=").map((s) => s.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
  const title = /** @type {HTMLElement | null} */ (document.querySelector("title[data-i18n]"));
  if (title) document.title = t(/** @type {string} */ (title.dataset.i18n));
}

// "3 minutes ago", "in 2 hours": Intl.RelativeTimeFormat in the page's language.
/** @param {string} iso */
export function relativeTime(iso) {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return "";
  const seconds = Math.round((then - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(state.lang, { numeric: "auto" });
  /** @type {[Intl.RelativeTimeFormatUnit, number][]} */
  const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(seconds, "second");
}

/** @param {string} iso */
export function dateTime(iso) {
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) return "";
  return new Intl.DateTimeFormat(state.lang, { month: "long", day: "numeric", hour: "numeric", minute: "2-digit" }).format(then);
}
