// Shared by the play and replay pages: the HTTP client (API.md only) and card drawing.

const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };

export class ApiError extends Error {
  constructor(status, problem) {
    const title = (problem && problem.title) || `HTTP ${status}`;
    const detail = problem && problem.detail;
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code;
  }
}

// One request; JSON in and out, problem+json turned into ApiError. Returns {status, data, headers}.
export async function api(method, path, { body, token, headers = {} } = {}) {
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
    throw new ApiError(0, { title: "Network error", detail: "the server could not be reached" });
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
const TOKEN_KEY = (gameId) => `basra:seat:${gameId}`;

export function loadSeat(gameId) {
  try {
    const stored = JSON.parse(localStorage.getItem(TOKEN_KEY(gameId)) || "null");
    return stored && stored.token ? stored : null;
  } catch (err) {
    return null;
  }
}

export function saveSeat(gameId, seat, token) {
  localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify({ seat, token }));
}

export function parseCard(code) {
  const text = String(code).toUpperCase();
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_NAME[rank] || rank} of ${SUIT_NAME[suit] || suit}`;
}

export function cardText(code) {
  const { rank, suit } = parseCard(code);
  return rank + (SUIT_SYMBOL[suit] || suit);
}

export function cardsText(codes) {
  return codes && codes.length ? codes.map(cardText).join(" ") : "nothing";
}

export function isRed(code) {
  const { suit } = parseCard(code);
  return suit === "H" || suit === "D";
}

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

// A card face: rank and suit in the corners, a large suit symbol in the middle.
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

export function cardBack(extraClass = "") {
  return el("div", { class: `card back ${extraClass}`.trim(), "aria-hidden": "true" });
}

export function seatName(view, seat) {
  const entry = (view.seats || []).find((s) => s.seat === seat);
  if (!entry) return `Seat ${seat}`;
  if (entry.name) return entry.name;
  if (entry.bot) return `${entry.bot} bot`;
  return "(open seat)";
}

export function sideName(view, side) {
  const seats = (view.seats || []).filter((s) => s.side === side).map((s) => seatName(view, s.seat));
  return seats.length ? seats.join(" & ") : `Side ${side}`;
}

export function describeMove(view, move, you) {
  if (!move) return "";
  const who = move.seat === you ? "You" : seatName(view, move.seat);
  const took = move.captured && move.captured.length ? `took ${cardsText(move.captured)}` : "trailed";
  const basra = move.basra === "jack_basra" ? " \u2014 JACK BASRA!" : move.basra ? " \u2014 BASRA!" : "";
  return `${who} played ${cardText(move.card)} and ${took}${basra}`;
}
