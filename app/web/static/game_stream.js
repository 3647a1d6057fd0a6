// @ts-check
// Following the game: its public stream (or polling) says when something changed, the view comes
// with If-None-Match, the moves from the log, and the log also tells of timed-out plays and
// rematch offers. Talks to the service only through API.md.
import { api, timedOutMoves } from "./basra.js";
import { byId as $ } from "./dom.js";
import { t } from "./i18n.js";
import { Live } from "./live.js";
import { addMoves, game, openId, sleep } from "./game_state.js";
import { redrawLog, redrawResult } from "./game_view.js";
import { isSeated } from "./table.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("../generated/basra").components["schemas"]["Moves"]} Moves */
/** @typedef {import("../generated/basra").components["schemas"]["Events"]} Events */
/** @typedef {import("./live.js").StreamRecord} StreamRecord */

/**
 * The game's view for this page's token, or null when it has not changed since the last look.
 * @returns {Promise<View | null>}
 */
export async function fetchView() {
  /** @type {Record<string, string>} */
  const headers = {};
  if (game.etag) headers["If-None-Match"] = game.etag;
  const res = await api("GET", `/games/${encodeURIComponent(openId())}`, { token: game.token, headers });
  if (res.status === 304) return null;
  game.etag = res.headers.get("ETag");
  return res.data;
}

/** Every move so far, from the log (GET /games/{id}/moves). */
export async function fetchMoves() {
  /** @type {{data: Moves}} */
  const { data } = await api("GET", `/games/${encodeURIComponent(openId())}/moves`);
  addMoves((data && data.moves) || []);
}

/** Which plays the server made for a seat whose time ran out: TurnTimedOut in the game's log. */
export async function loadTimeouts() {
  /** @type {{data: Events}} */
  const { data } = await api("GET", `/games/${encodeURIComponent(openId())}/events?after=0`, { token: game.token });
  for (const key of timedOutMoves((data && data.events) || [])) game.timedOut.add(key);
  if (game.timedOut.size) redrawLog();
}

/**
 * Follows the game while it can change; `onChange` hears of each change (the stream's records,
 * or none for a poll tick).
 * @param {View} view
 * @param {(records: StreamRecord[]) => Promise<void>} onChange
 */
export function follow(view, onChange) {
  if (game.live) game.live.stop();
  if (view.status === "finished" || view.status === "cancelled") return;
  game.live = new Live(openId(), {
    version: view.version,
    onChange,
    onMode: (mode) => {
      $("game").dataset.live = mode;
      const over = game.view && (game.view.status === "finished" || game.view.status === "cancelled");
      $("live").textContent = over ? "" : mode === "stream" ? t("live.stream") : mode === "polling" ? t("live.polling") : "";
    },
  });
}

/** Stops following the game. */
export function unfollow() {
  if (game.live) game.live.stop();
  game.live = null;
}

/**
 * After a game with other people at the table: its log says when one of them asks for a rematch
 * (RematchOffered). Looked at every few seconds while the offer could stand (5 minutes).
 * @param {View} view
 */
export async function watchRematch(view) {
  const id = view.id || openId();
  const people = (view.seats || []).filter((s) => !s.bot && s.seat !== view.you).length;
  if (!isSeated(view) || view.status !== "finished" || !people || game.rematchWatch === id) return;
  game.rematchWatch = id;
  for (let round = 0; round < 100 && game.id === id && !game.rematchOffer; round += 1) {
    try {
      /** @type {{data: Events}} */
      const { data } = await api("GET", `/games/${encodeURIComponent(id)}/events?after=0`);
      const offer = ((data && data.events) || []).find((e) => e.type === "RematchOffered");
      if (offer && game.id === id) {
        const to = offer.data && offer.data.game_id;
        game.rematchOffer = { from: id, to: typeof to === "string" ? to : undefined };
        redrawResult();
        return;
      }
    } catch (err) {
      // try again at the next look
    }
    await sleep(3000);
  }
}
