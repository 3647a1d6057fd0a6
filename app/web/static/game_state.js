// @ts-check
// The table's state: the one game this page shows, what is known of it and what is on screen.
// Every other part of the table (view, stream, playback, actions) reads and updates it here.

/** @typedef {import("../generated/basra").components["schemas"]["View"]} View */
/** @typedef {import("../generated/basra").components["schemas"]["MoveOut"]} Move */
/** @typedef {import("../generated/basra").components["schemas"]["Card"]} Card */
/** @typedef {import("./live.js").Live} Live */

/**
 * @typedef {object} Game
 * @property {string | null} id
 * @property {string | null} token the seat's bearer token, or the player's; null when watching
 * @property {View | null} view the newest view received
 * @property {View | null} shown what is on screen (a step of a play-back, or the newest view)
 * @property {string | null} etag
 * @property {Move[]} moves every move known, in order (public)
 * @property {number} shownN moves up to this n are on screen
 * @property {boolean} busy a move of this page's is on its way
 * @property {boolean} refreshLater something changed while it was: look again once it is answered
 * @property {boolean} animating
 * @property {Promise<void>} queue the views waiting to be shown, one after another
 * @property {Live | null} live
 * @property {Card | null} focusCard
 * @property {Card | null} selected on a touch screen: the card tapped once, shown with what it would take
 * @property {Set<string>} timedOut moves the server played for a seat whose time ran out (moveKey)
 * @property {ReturnType<typeof setInterval> | null} clockTimer
 * @property {number | null} ratingBefore this browser's player's rating when the game opened
 * @property {string} [baseTitle] the tab's title for this game
 * @property {{from: string, to: string | undefined} | null} [rematchOffer] another seat asked for a rematch
 * @property {string} [rematchWatch] the game whose log is watched for a rematch offer
 */

/** @type {Game} */
export const game = {
  id: null,
  token: null,
  view: null,
  shown: null,
  etag: null,
  moves: [],
  shownN: 0,
  busy: false,
  refreshLater: false,
  animating: false,
  queue: Promise.resolve(),
  live: null,
  focusCard: null,
  selected: null,
  timedOut: new Set(),
  clockTimer: null,
  ratingBefore: null,
};

/**
 * The id of the game on the page, which openGame() sets before anything asks for it.
 * @returns {string}
 */
export function openId() {
  if (game.id === null) throw new Error("no game is open on this page");
  return game.id;
}

export const PACE_KEY = "basra:pace";

/**
 * @param {string} id
 * @returns {string}
 */
export const INVITE_KEY = (id) => `basra:invite:${id}`;

/** How long a bot's play stays on screen, in milliseconds (the lobby's bot-speed setting). */
export function pace() {
  const stored = Number(localStorage.getItem(PACE_KEY));
  return Number.isFinite(stored) && localStorage.getItem(PACE_KEY) !== null ? stored : 800;
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * Adds moves to those known, once each, in order.
 * @param {Move[] | undefined | null} moves
 */
export function addMoves(moves) {
  for (const move of moves || []) {
    if (!move || typeof move.n !== "number") continue;
    if (!game.moves.some((m) => m.n === move.n)) game.moves.push(move);
  }
  game.moves.sort((a, b) => a.n - b.n);
}

/** The number of the newest move known, 0 before the first. */
export function lastKnownN() {
  return game.moves.length ? game.moves[game.moves.length - 1].n : 0;
}

/** The moves on screen. */
export function shownMoves() {
  return game.moves.filter((m) => m.n <= game.shownN);
}
