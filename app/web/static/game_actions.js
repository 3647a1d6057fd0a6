// @ts-check
// What the player does at the table: play a card (one Idempotency-Key per intended move, sent
// again with a retry), join, resign, ask for a rematch, copy the invite link; and naming this
// browser's player and keeping the seat an answer gave it, which the lobby does too.
import { ApiError, api, cardText, saveSeat, statusOf } from "./basra.js";
import { byId as $, fieldById } from "./dom.js";
import { t } from "./i18n.js";
import { ensurePlayer, renamePlayer } from "./player.js";
import { addMoves, game, openId, sleep } from "./game_state.js";
import { unfollow } from "./game_stream.js";
import { enqueue, openGame, refresh } from "./game_playback.js";
import { draw, setStatus, showError, showPlayer } from "./game_view.js";
import { yourTurn } from "./table.js";

/** @typedef {import("./game_state.js").Card} Card */
/** @typedef {import("./player.js").Me} Player */
/** @typedef {import("../generated/basra").components["schemas"]["CreatedSeat"]} CreatedSeat */
/** @typedef {import("../generated/basra").components["schemas"]["MoveResult"]} MoveResult */
/** @typedef {import("../generated/basra").components["schemas"]["Joined"]} Joined */
/** @typedef {import("../generated/basra").components["schemas"]["CreatedGame"]} CreatedGame */
/** @typedef {import("../generated/basra").components["schemas"]["Resigned"]} Resigned */

// A move whose answer did not come (the network, or a 5xx) is sent again, with the same key, this
// many times at most, after these pauses (or the server's Retry-After, up to the longest).
export const MOVE_RETRY_PAUSES_MS = [500, 1000, 2000];

/** A fresh Idempotency-Key. */
function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether a request that failed this way may have been lost on its way (or its answer was):
 * worth sending again, under the same key.
 * @param {unknown} err
 * @returns {err is ApiError}
 */
function retryable(err) {
  return err instanceof ApiError && (err.status === 0 || err.status >= 500);
}

/**
 * POST /games/{id}/moves for one intended move: the same Idempotency-Key (and body) on every
 * attempt, so a move that was played before its answer was lost is answered again, not played
 * twice.
 * @param {Card} code
 * @param {number} version the view's version the player chose on (If-Match)
 * @returns {Promise<MoveResult>}
 */
async function sendMove(code, version) {
  const key = newKey();
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { data } = await api("POST", `/games/${encodeURIComponent(openId())}/moves`, {
        token: game.token,
        body: { card: code },
        headers: { "Idempotency-Key": key, "If-Match": `"${version}"` },
      });
      return data;
    } catch (err) {
      if (!retryable(err) || attempt >= MOVE_RETRY_PAUSES_MS.length) throw err;
      const longest = MOVE_RETRY_PAUSES_MS[MOVE_RETRY_PAUSES_MS.length - 1];
      await sleep(Math.min(longest, err.retryAfter * 1000 || MOVE_RETRY_PAUSES_MS[attempt]));
    }
  }
}

/**
 * Plays `code` if it is this seat's turn and the table shows the newest view.
 * @param {Card} code
 */
export async function playCard(code) {
  const view = game.view;
  if (game.busy || !view) return;
  if (game.animating || game.shown !== view) {
    setStatus(t("status.wait_playback"), "warn");
    return;
  }
  if (!yourTurn(view)) {
    setStatus(view.status === "active" ? t("status.wait_turn") : t("status.not_in_play"), "warn");
    return;
  }
  game.busy = true;
  game.focusCard = null;
  game.selected = null;
  setStatus(t("status.playing", { card: cardText(code) }));
  try {
    const data = await sendMove(code, view.version);
    setStatus("");
    addMoves(data.moves || []);
    game.busy = false;
    await enqueue(data.state);
  } catch (err) {
    showError(err);
    const status = statusOf(err);
    if (status === 409 || status === 412) game.etag = null; // the next look refreshes
  } finally {
    game.busy = false;
    if (game.refreshLater) {
      game.refreshLater = false;
      refresh([]).catch(showError);
    }
  }
}

/**
 * On a touch screen the first tap selects a card (the table shows what it would take), the
 * second tap on it, or the Play button, plays it.
 * @param {Card} code
 */
export function selectCard(code) {
  if (!game.view || !yourTurn(game.view) || game.animating || game.shown !== game.view) {
    playCard(code); // says why it cannot be played now
    return;
  }
  if (game.selected === code) {
    playCard(code);
    return;
  }
  game.selected = code;
  draw(game.view, { final: true });
}

/**
 * The keys 1 to 9 play the hand's cards.
 * @param {KeyboardEvent} event
 */
export function onKey(event) {
  const target = /** @type {HTMLElement | null} */ (event.target);
  if (target && /^(INPUT|SELECT|TEXTAREA|DIALOG)$/.test(target.tagName)) return;
  if (event.altKey || event.ctrlKey || event.metaKey || /** @type {HTMLDialogElement} */ ($("resign-dialog")).open) return;
  if (!/^[1-9]$/.test(event.key) || !game.view || !game.view.hand || $("game").hidden) return;
  const code = game.view.hand[Number(event.key) - 1];
  if (code) {
    event.preventDefault();
    playCard(code);
  }
}

/**
 * This browser's player under the name typed in the lobby, or null where the server has none:
 * the page then plays with seat tokens alone, as every seat still can.
 * @param {string} name
 * @returns {Promise<Player | null>}
 */
export async function namedPlayer(name) {
  try {
    const player = await renamePlayer(name);
    showPlayer(player);
    return player;
  } catch (err) {
    const status = statusOf(err);
    if (status === 0 || (status !== undefined && status >= 500) || status === 429) throw err;
    return null;
  }
}

/**
 * The seat a create or join answer gave this browser: its player's (acting with the player's
 * bearer), else the one whose own token came back.
 * @param {string} gameId
 * @param {CreatedSeat[] | undefined} seats
 * @param {Player | null} player
 * @returns {CreatedSeat | null}
 */
export function keepSeat(gameId, seats, player) {
  const held = player && (seats || []).find((s) => s.player === player.id);
  if (held) {
    saveSeat(gameId, held.seat, player.token);
    return held;
  }
  const mine = (seats || []).find((s) => s.token);
  if (mine && mine.token) saveSeat(gameId, mine.seat, mine.token);
  return mine || null;
}

/** The invite a shared link carries in its fragment. */
function inviteFromLink() {
  const match = location.hash.match(/(?:^#|&)invite=([^&]+)/);
  return match ? decodeURIComponent(match[1]) : null;
}

/** @param {SubmitEvent} event */
export async function joinGame(event) {
  event.preventDefault();
  const name = fieldById("join-name").value.trim() || t("lobby.default_name");
  localStorage.setItem("basra:name", name);
  const seed = fieldById("join-seed").value.trim();
  /** @type {{name: string, seed?: string, invite?: string}} */
  const body = seed ? { name, seed } : { name };
  const invite = inviteFromLink();
  if (invite) body.invite = invite;
  try {
    setStatus(t("status.joining"));
    const player = await namedPlayer(name);
    /** @type {{data: Joined}} */
    const { data } = await api("POST", `/games/${encodeURIComponent(openId())}/join`,
      { body, token: player ? player.token : null });
    game.token = player ? player.token : data.token;
    saveSeat(openId(), data.seat, game.token);
    game.etag = null;
    if (invite) history.replaceState({}, "", location.pathname); // the invite has done its job
    setStatus(t("status.joined"));
    addMoves(data.moves || []);
    await enqueue(data.state);
  } catch (err) {
    showError(err);
  }
}

/** Resigns once the dialog was closed with "resign". */
export async function resign() {
  if (/** @type {HTMLDialogElement} */ ($("resign-dialog")).returnValue !== "resign") return;
  try {
    /** @type {{data: Resigned | null}} */
    const { data } = await api("POST", `/games/${encodeURIComponent(openId())}/resign`, { token: game.token });
    setStatus(t("status.resigned"));
    if (data && data.state) await enqueue(data.state);
  } catch (err) {
    showError(err);
  }
}

/** Copies the invite link, or asks the player to. */
export async function copyLink() {
  const input = fieldById("share-link");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    setStatus(t("status.copied"), "good");
  } catch (err) {
    setStatus(t("status.copy_yourself"), "warn");
  }
}

/**
 * POST /games/{id}/rematch: every seat's call gets the same new game (API.md 23).
 * @param {HTMLButtonElement} button
 */
export async function rematch(button) {
  button.disabled = true;
  try {
    /** @type {{data: CreatedGame}} */
    const { data } = await api("POST", `/games/${encodeURIComponent(openId())}/rematch`, { token: game.token });
    // The caller sits where it sat: its seat comes back with a token of its own.
    const player = await ensurePlayer().catch(() => null);
    const mine = (data.seats || []).find((s) => s.token) || null;
    if (mine && mine.token) saveSeat(data.id, mine.seat, mine.token);
    else keepSeat(data.id, data.seats, player);
    history.pushState({}, "", `/play/${encodeURIComponent(data.id)}`);
    unfollow();
    game.ratingBefore = null;
    await openGame(data.id, data.state || null, data.moves || []);
  } catch (err) {
    showError(err);
    button.disabled = false;
  }
}
