// @ts-check
// The browser's own player (API.md 17): made on the first visit as a guest, its bearer token kept
// in localStorage, so the same person plays, is rated and has a history across games.
import { api, statusOf } from "./basra.js";
import { num, t } from "./i18n.js";

/** @typedef {import("../generated/basra").components["schemas"]["PlayerProfile"]} PlayerProfile */
/** @typedef {import("../generated/basra").components["schemas"]["Rating"]} Rating */
/** @typedef {import("../generated/basra").components["schemas"]["CreatedPlayer"]} CreatedPlayer */
/**
 * This browser's player with its bearer token: what making it answered, and its profile once read.
 * @typedef {CreatedPlayer & Partial<PlayerProfile>} Me
 */
/** @typedef {{id: string, token: string, name?: string}} StoredPlayer */

const PLAYER_KEY = "basra:player";
const NAME_KEY = "basra:name";

/** @returns {StoredPlayer | null} */
function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    return value && value.id && value.token ? value : null;
  } catch (err) {
    return null;
  }
}

/**
 * @param {{id: string, name: string}} player
 * @param {string} token
 */
function keep(player, token) {
  localStorage.setItem(PLAYER_KEY, JSON.stringify({ id: player.id, token, name: player.name }));
  localStorage.setItem(NAME_KEY, player.name);
}

function guestName() {
  const digits = new Uint16Array(1);
  crypto.getRandomValues(digits);
  return t("player.guest", { n: String(1000 + (digits[0] % 9000)) });
}

/** @type {Me | null} */
let current = null; // {id, name, rating, stats, token} once known

/** @returns {string | null} */
export function playerToken() {
  return (current && current.token) || stored()?.token || null;
}

/** @returns {string | null} */
export function playerId() {
  return (current && current.id) || stored()?.id || null;
}

// The player this browser plays as: the stored one if the server still knows its token, else a
// new guest (a server that lost its database, or a token revoked, starts a new one).
/** @type {Promise<Me> | null} */
let pending = null; // the request under way: callers at the same moment share one guest

/** @returns {Promise<Me>} */
export function ensurePlayer() {
  if (current) return Promise.resolve(current);
  if (!pending) pending = findPlayer().finally(() => { pending = null; });
  return pending;
}

/** @returns {Promise<Me>} */
async function findPlayer() {
  const mine = stored();
  if (mine) {
    try {
      /** @type {{data: PlayerProfile}} */
      const { data } = await api("GET", "/players/me", { token: mine.token });
      const me = { ...data, token: mine.token };
      current = me;
      keep(me, mine.token);
      return me;
    } catch (err) {
      const status = statusOf(err);
      if (status !== 401 && status !== 403 && status !== 404) throw err;
    }
  }
  const name = (localStorage.getItem(NAME_KEY) || "").trim() || guestName();
  /** @type {{data: CreatedPlayer}} */
  const { data } = await api("POST", "/players", { body: { name } });
  const me = { ...data };
  current = me;
  keep(me, data.token);
  return me;
}

// A new name for this browser's player; the name every later game shows.
/**
 * @param {string} name
 * @returns {Promise<Me>}
 */
export async function renamePlayer(name) {
  const player = await ensurePlayer();
  if (player.name === name) return player;
  /** @type {{data: PlayerProfile}} */
  const { data } = await api("PATCH", "/players/me", { body: { name }, token: player.token });
  const me = { ...(current ?? player), ...data };
  current = me;
  keep(me, player.token);
  return me;
}

// The player as the server has it now: after a rename or a rated game the header shows it.
/** @returns {Promise<Me>} */
export async function refreshPlayer() {
  const player = await ensurePlayer();
  /** @type {{data: PlayerProfile}} */
  const { data } = await api("GET", "/players/me", { token: player.token });
  const me = { ...(current ?? player), ...data };
  current = me;
  keep(me, player.token);
  return me;
}

// A rating as the API gives it (the players' scale, one scale for players and bots), written with
// a tenth of a point below 100; "?" while provisional.
/** @param {number} value */
export function ratingNumber(value) {
  return Math.abs(value) < 100 ? num(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 })
    : num(Math.round(value));
}

/**
 * @param {Rating | null | undefined} rating
 * @returns {string}
 */
export function ratingText(rating) {
  if (!rating) return t("rating.unrated");
  const value = ratingNumber(rating.value);
  return rating.provisional ? t("rating.provisional_value", { value }) : value;
}

// "+2.6" / "−1.3" between two ratings, or "" when it did not move.
/**
 * @param {number | null | undefined} before
 * @param {{value: number} | null | undefined} after
 */
export function ratingChange(before, after) {
  if (typeof before !== "number" || !after || typeof after.value !== "number") return "";
  const delta = after.value - before;
  if (Math.abs(delta) < 0.05) return "";
  return `${delta > 0 ? "+" : "\u2212"}${ratingNumber(Math.abs(delta))}`;
}
