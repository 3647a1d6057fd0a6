// @ts-check
// Shared by the play and replay pages: the HTTP client (API.md only) and card drawing.
import { el } from "./dom.js";
import { has, nm, num, t, tx } from "./i18n.js";

export { el };

/** @typedef {import("../generated/basra").components["schemas"]["MoveOut"]} Move */
/** @typedef {import("./i18n.js").Param} Param */
/** @typedef {import("./dom.js").Attr} Attr */
/** @typedef {{seat: number, token: string}} StoredSeat a seat this browser holds, with its bearer */
/**
 * A seat as every reader of names has it: a view's, a replay's, a listing's.
 * @typedef {{seat: number, name?: string | null, bot?: string | null, side?: number}} NamedSeat
 */
/**
 * What the naming functions read of a game: its seats (a view, a replay's state, a listing).
 * @typedef {{seats?: NamedSeat[]}} Seated
 */

/** @type {Record<string, string>} */
const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

/**
 * A refusal (problem+json, whose `code` is one of the API's ProblemCode), or a request that never
 * got an answer (status 0, code "network").
 */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{title?: string, detail?: string, code?: string, [field: string]: unknown} | null} problem
   */
  constructor(status, problem) {
    const title = (problem && problem.title) || `HTTP ${status}`;
    const detail = problem && problem.detail;
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code;
    /** seconds the server asked to wait (Retry-After), 0 when it did not say */
    this.retryAfter = 0;
  }
}

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body] sent as JSON
 * @property {string | null} [token] the bearer token
 * @property {Record<string, string>} [headers]
 */

/**
 * One request; JSON in and out, problem+json turned into ApiError. `data` is the answer's JSON,
 * typed by the caller from the generated schemas.
 * @param {string} method
 * @param {string} path
 * @param {RequestOptions} [options]
 * @returns {Promise<{status: number, data: any, headers: Headers}>}
 */
export async function api(method, path, { body, token, headers = {} } = {}) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, headers: { Accept: "application/json", ...headers }, cache: "no-store" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, { title: "Network error", detail: "the server could not be reached", code: "network" });
  }
  if (response.status === 304) return { status: 304, data: null, headers: response.headers };
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (err) {
      data = null;
    }
  }
  if (!response.ok) {
    const problem = data || { title: response.statusText || `HTTP ${response.status}` };
    const error = new ApiError(response.status, problem);
    error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    throw error;
  }
  return { status: response.status, data, headers: response.headers };
}

// The bearer token of each seat this browser holds, kept per game id.
const TOKEN_KEY = (/** @type {string} */ gameId) => `basra:seat:${gameId}`;

/**
 * @param {string} gameId
 * @returns {StoredSeat | null}
 */
export function loadSeat(gameId) {
  try {
    const stored = JSON.parse(localStorage.getItem(TOKEN_KEY(gameId)) || "null");
    return stored && stored.token ? stored : null;
  } catch (err) {
    return null;
  }
}

/**
 * @param {string} gameId
 * @param {number} seat
 * @param {string} token
 */
export function saveSeat(gameId, seat, token) {
  localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify({ seat, token }));
}

/** @param {string} code */
export function parseCard(code) {
  const text = String(code).toUpperCase();
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}

/**
 * The HTTP status a refusal came with (0: no answer), undefined for anything else thrown.
 * @param {unknown} err
 * @returns {number | undefined}
 */
export function statusOf(err) {
  return err instanceof ApiError ? err.status : undefined;
}

// A problem from the API in the page's language, from its stable `code`; the server's own
// English words only where the catalogue has no message for the code.
/**
 * @param {unknown} err anything thrown
 * @returns {string}
 */
export function errorText(err) {
  if (err instanceof ApiError) {
    if (err.code && has(`error.${err.code}`)) return t(`error.${err.code}`);
    if (err.status >= 500) return t("error.server");
    return err.message;
  }
  const message = err && typeof err === "object" && "message" in err ? err.message : undefined;
  return String(message || err);
}

// "9 of hearts" in the page's language: the words players of that language use for the suits
// and the court cards.
/** @param {string} code */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  const rankName = /^[AJQK]$/.test(rank) ? t(`rank.${rank}`) : num(Number(rank));
  return t("card.name", { rank: rankName, suit: t(`suit.${suit}`) });
}

// "9♥". On a right-to-left page each card is isolated left to right (U+2066 ... U+2069), so the
// suit stays after the rank and a list of cards keeps its order.
/** @param {string} code */
export function cardText(code) {
  const { rank, suit } = parseCard(code);
  const text = rank + (SUIT_SYMBOL[suit] || suit);
  return document.documentElement.dir === "rtl" ? `\u2066${text}\u2069` : text;
}

/** @param {readonly string[] | null | undefined} codes */
export function cardsText(codes) {
  return codes && codes.length ? codes.map(cardText).join(" ") : t("move.nothing");
}

/** @param {string} code */
export function isRed(code) {
  const { suit } = parseCard(code);
  return suit === "H" || suit === "D";
}

// A card face: rank and suit in the corners, a large suit symbol in the middle.
/**
 * @param {string} code
 * @param {{tag?: "div" | "button", attrs?: Record<string, Attr>}} [options]
 */
export function cardFace(code, { tag = "div", attrs = {} } = {}) {
  const { rank, suit } = parseCard(code);
  const symbol = SUIT_SYMBOL[suit] || suit;
  const colour = isRed(code) ? "red" : "black";
  const { class: extra = "", ...rest } = attrs;
  return el(
    tag,
    { class: `card ${colour} ${extra}`.trim(), "data-card": `${rank}${suit}`, ...rest },
    el("span", { class: "corner top", "aria-hidden": "true" }, el("b", { text: rank }), el("i", { text: symbol })),
    el("span", { class: "pip", "aria-hidden": "true", text: /^[JQK]$/.test(rank) ? rank + symbol : symbol }),
    el("span", { class: "corner bottom", "aria-hidden": "true" }, el("b", { text: rank }), el("i", { text: symbol })),
  );
}

/** @param {string} [extraClass] */
export function cardBack(extraClass = "") {
  return el("div", { class: `card back ${extraClass}`.trim(), "aria-hidden": "true" });
}

// A seat's name: the player's, a bot's level name, numbered where two bots of one level play.
/**
 * @param {Seated} view
 * @param {number} seat
 * @returns {string}
 */
export function seatName(view, seat) {
  const entry = (view.seats || []).find((s) => s.seat === seat);
  if (!entry) return t("seat.number", { n: seat + 1 });
  // A bot's name is its level's, in the page's language (the server's English name is not shown).
  if (entry.bot) {
    const same = (view.seats || []).filter((s) => s.bot === entry.bot);
    const level = botLevel(entry.bot);
    if (same.length < 2) return t("bot.name", { level });
    return t("bot.numbered", { level, n: same.findIndex((s) => s.seat === seat) + 1 });
  }
  if (entry.name) return entry.name;
  return t("seat.open");
}

/** @param {string} level */
export function botLevel(level) {
  return has(`bot.level.${level}`) ? t(`bot.level.${level}`) : String(level);
}

/**
 * @param {Seated} view
 * @param {number} side
 */
export function sideName(view, side) {
  const seats = (view.seats || []).filter((s) => s.side === side).map((s) => seatName(view, s.seat));
  return seats.length ? seats.join(t("side.joiner")) : t("side.number", { n: side + 1 });
}

// What a move did, as nodes (names in <bdi>). `timedOut`: the server played it when the seat's
// time ran out.
/**
 * @typedef {object} MoveWords
 * @property {Param} [who] how the seat that played is named (its name by default)
 * @property {boolean} [timedOut]
 */
/**
 * @param {Seated} view
 * @param {Move | null | undefined} move
 * @param {number | null | undefined} you
 * @param {MoveWords} [options]
 * @returns {(string | Node)[]}
 */
export function describeMove(view, move, you, { who = null, timedOut = false } = {}) {
  if (!move) return [];
  const mine = move.seat === you;
  const name = who || nm(seatName(view, move.seat));
  const card = cardText(move.card);
  const took = move.captured && move.captured.length;
  const params = { who: name, card, cards: cardsText(move.captured || []) };
  let key;
  if (timedOut) key = mine ? "move.timeout_you" : "move.timeout_other";
  else key = mine ? "move.you" : "move.other";
  const parts = [...tx(`${key}.${took ? "took" : "trailed"}`, params)];
  if (move.basra === "jack_basra") parts.push(" \u2014 ", t("move.jack_basra"));
  else if (move.basra) parts.push(" \u2014 ", t("move.basra"));
  return parts;
}

/**
 * @param {Seated} view
 * @param {Move | null | undefined} move
 * @param {number | null | undefined} you
 * @param {MoveWords} [options]
 */
export function moveString(view, move, you, options) {
  return describeMove(view, move, you, options).map((p) => (p instanceof Node ? p.textContent : p)).join("");
}

// The plays the server made for seats whose time ran out, from the game's event log: each
// TurnTimedOut names the seat and the card, within the round dealt last (see table.js moveKey).
/**
 * @param {{type: string, data?: Record<string, unknown> | null}[]} events
 * @returns {string[]}
 */
export function timedOutMoves(events) {
  const keys = [];
  let round = 1;
  for (const { type, data } of events) {
    if (!data) continue;
    if (type === "RoundDealt" && typeof data.round === "number") round = data.round;
    if (type === "TurnTimedOut") keys.push(`${round}:${data.seat}:${String(data.card).toUpperCase()}`);
  }
  return keys;
}
