// The browser's own player (API.md 17): made on the first visit as a guest, its bearer token kept
// in localStorage, so the same person plays, is rated and has a history across games.
import { api } from "./basra.js";

const PLAYER_KEY = "basra:player";
const NAME_KEY = "basra:name";

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    return value && value.id && value.token ? value : null;
  } catch (err) {
    return null;
  }
}

function keep(player, token) {
  localStorage.setItem(PLAYER_KEY, JSON.stringify({ id: player.id, token, name: player.name }));
  localStorage.setItem(NAME_KEY, player.name);
}

function guestName() {
  const digits = new Uint16Array(1);
  crypto.getRandomValues(digits);
  return `Guest ${1000 + (digits[0] % 9000)}`;
}

let current = null; // {id, name, rating, stats, token} once known

export function playerToken() {
  return (current && current.token) || (stored() || {}).token || null;
}

export function playerId() {
  return (current && current.id) || (stored() || {}).id || null;
}

// The player this browser plays as: the stored one if the server still knows its token, else a
// new guest (a server that lost its database, or a token revoked, starts a new one).
export async function ensurePlayer() {
  if (current) return current;
  const mine = stored();
  if (mine) {
    try {
      const { data } = await api("GET", "/players/me", { token: mine.token });
      current = { ...data, token: mine.token };
      keep(current, mine.token);
      return current;
    } catch (err) {
      if (err.status !== 401 && err.status !== 403 && err.status !== 404) throw err;
    }
  }
  const name = (localStorage.getItem(NAME_KEY) || "").trim() || guestName();
  const { data } = await api("POST", "/players", { body: { name } });
  current = { ...data };
  keep(current, data.token);
  return current;
}

// A new name for this browser's player; the name every later game shows.
export async function renamePlayer(name) {
  const player = await ensurePlayer();
  if (player.name === name) return player;
  const { data } = await api("PATCH", "/players/me", { body: { name }, token: player.token });
  current = { ...current, ...data };
  keep(current, player.token);
  return current;
}

// A rating as a person reads it: a tenth of a point on openskill's small scale, "?" while provisional.
export function ratingNumber(value) {
  return Math.abs(value) < 100 ? value.toFixed(1) : String(Math.round(value));
}

export function ratingText(rating) {
  if (!rating) return "unrated";
  const value = ratingNumber(rating.value);
  return rating.provisional ? `${value}?` : value;
}
