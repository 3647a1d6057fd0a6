// @ts-check
// "Play online" (API.md 21): a seek for this browser's player, followed by long polls until the
// server pairs it (or a bot takes the other seats), then the table opens.
import { api, saveSeat, statusOf } from "./basra.js";
import { ensurePlayer } from "./player.js";
import { t } from "./i18n.js";
import { byId as $, fieldById } from "./dom.js";

/** @typedef {import("../generated/basra").components["schemas"]["SeekOut"]} SeekOut */
/** @typedef {SeekOut & {game_id: string, seat: number}} MatchedSeek a matched seek names its game and seat */
/** @typedef {(err: unknown) => void} OnError */

export const BOT_AFTER_SECONDS = 20;
const WAIT_SECONDS = 25; // under the server's 30 s cap on ?wait=
/**
 * @type {{id: string | null, token: string | null, started: number,
 *   timer: ReturnType<typeof setInterval> | undefined, cancelled: boolean}}
 */
const search = { id: null, token: null, started: 0, timer: undefined, cancelled: false };

function chosen() {
  const players = Number((/** @type {HTMLInputElement | null} */ (document.querySelector("input[name=online-players]:checked")) || { value: "" }).value || 2);
  /** @type {{players: number, rated: boolean, bot_after?: number}} */
  const body = { players, rated: fieldById("online-rated").checked };
  if (fieldById("online-bot").checked) body.bot_after = BOT_AFTER_SECONDS;
  return body;
}

/** @param {boolean} on */
function showSearching(on, message = t("online.looking")) {
  $("seeking").hidden = !on;
  /** @type {HTMLButtonElement} */ ($("seek")).disabled = on;
  $("seek-status").textContent = message;
  $("online").dataset.seeking = on ? "true" : "false";
  clearInterval(search.timer);
  if (on) {
    search.started = Date.now();
    $("seek-elapsed").textContent = t("online.elapsed", { n: 0 });
    search.timer = setInterval(() => {
      $("seek-elapsed").textContent = t("online.elapsed", { n: Math.floor((Date.now() - search.started) / 1000) });
    }, 250);
  }
}

/**
 * @param {(gameId: string) => void} onMatched
 * @param {OnError} onError
 */
async function follow(onMatched, onError) {
  while (search.id && !search.cancelled) {
    /** @type {SeekOut} */
    let data;
    try {
      ({ data } = await api("GET", `/seeks/${encodeURIComponent(search.id)}?wait=${WAIT_SECONDS}`, { token: search.token }));
    } catch (err) {
      if (search.cancelled) return;
      onError(err);
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
      continue;
    }
    if (search.cancelled) return;
    if (data.status === "matched") {
      const matched = /** @type {MatchedSeek} */ (data);
      const token = /** @type {string} */ (search.token); // startSeek() set it before following
      saveSeat(matched.game_id, matched.seat, token); // the player's bearer acts for its seat
      showSearching(false);
      search.id = null;
      onMatched(matched.game_id);
      return;
    }
    if (data.status !== "waiting") {
      showSearching(false);
      $("seek-status").textContent = "";
      search.id = null;
      onError(new Error(data.status === "expired" ? t("online.expired") : t("online.cancelled")));
      return;
    }
  }
}

/**
 * @param {(gameId: string) => void} onMatched
 * @param {OnError} onError
 */
export async function startSeek(onMatched, onError) {
  try {
    const player = await ensurePlayer();
    search.token = player.token;
    search.cancelled = false;
    showSearching(true);
    /** @type {{data: SeekOut}} */
    const { data } = await api("POST", "/seeks", { body: chosen(), token: player.token });
    search.id = data.id;
    $("online").dataset.seek = data.id;
    follow(onMatched, onError);
  } catch (err) {
    showSearching(false);
    onError(err);
  }
}

/** @param {OnError} onError */
export async function cancelSeek(onError) {
  const id = search.id;
  search.cancelled = true;
  search.id = null;
  delete $("online").dataset.seek;
  showSearching(false);
  if (!id) return;
  try {
    await api("DELETE", `/seeks/${encodeURIComponent(id)}`, { token: search.token });
  } catch (err) {
    if (statusOf(err) !== 409) onError(err); // matched meanwhile: the game is in the player's history
  }
}
