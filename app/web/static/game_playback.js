// @ts-check
// Showing the game as it changes: each new view waits its turn in a queue, and the moves that
// led to it are played back one at a time (step.js works out each step) so bot plays can be
// followed; then the round's summary, "your turn", the end of the game.
import { loadSeat, statusOf } from "./basra.js";
import { byId as $, el } from "./dom.js";
import { t } from "./i18n.js";
import { ensurePlayer, playerToken, ratingChange, refreshPlayer } from "./player.js";
import { sounds } from "./sound.js";
import { showRoundSummary } from "./summary.js";
import { clone, step } from "./step.js";
import { addMoves, game, lastKnownN, pace, sleep } from "./game_state.js";
import { fetchMoves, fetchView, follow, loadTimeouts, watchRematch } from "./game_stream.js";
import { draw, labelGame, setStatus, showError, showPlayer } from "./game_view.js";
import { isSeated, moveKey, yourTurn } from "./table.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("./game_state.js").Move} Move */
/** @typedef {import("./live.js").StreamRecord} StreamRecord */

/**
 * Opens the game `id` on the table: its view (given, or fetched with this browser's token) and
 * its moves so far, then follows it.
 * @param {string} id
 * @param {View | null} [initialView]
 * @param {Move[]} [initialMoves]
 */
export async function openGame(id, initialView = null, initialMoves = []) {
  game.id = id;
  // The seat's own token, or the player's that holds it. Opened from an address, the player's
  // bearer is tried: a player who holds no seat of this game is answered 403 and watches (below).
  game.token = loadSeat(id)?.token || (initialView ? null : playerToken());
  game.etag = null;
  game.moves = [];
  game.view = null;
  game.shown = null;
  $("lobby").hidden = true;
  window.scrollTo(0, 0); // the lobby may have been scrolled down to its Start button
  $("game-label").textContent = "";
  document.title = t("app.title");
  game.timedOut = new Set();
  game.selected = null;
  ensurePlayer().then((player) => {
    showPlayer(player);
    if (game.ratingBefore === null && player.rating) game.ratingBefore = player.rating.value;
  }).catch(() => {}); // the header shows this browser's player on a /play link too
  let view = initialView;
  if (!view) {
    try {
      view = await fetchView();
    } catch (err) {
      const status = statusOf(err);
      if (game.token && (status === 401 || status === 403)) {
        game.token = null; // a stale token: carry on as a spectator
        view = await fetchView();
      } else {
        throw err;
      }
    }
  }
  // Without an If-None-Match (no etag yet) the answer is always a view.
  if (!view) throw new Error("the game's view did not come");
  addMoves(initialMoves);
  try {
    if (view.status !== "waiting") await fetchMoves();
  } catch (err) {
    // the table shows without the log
  }
  // What was played before the page opened is history, not something to play back.
  game.shownN = lastKnownN();
  game.view = view;
  labelGame(view);
  game.rematchOffer = null;
  draw(view, { final: true });
  watchRematch(view);
  $("status").textContent = ""; // "Creating the game..." is done
  follow(view, (records) => refresh(records).catch((err) => {
    showError(err);
    throw err;
  }));
  loadTimeouts().catch(() => {}); // the log shows without the marks
}

/**
 * Something changed (a stream record, or a poll tick): fetch the view, then show it.
 * @param {StreamRecord[]} records
 */
export async function refresh(records) {
  if (!game.id) return;
  for (const { event, data } of records) {
    if (event === "move" && data) addMoves([data]);
    if (event === "timeout" && data && game.view) game.timedOut.add(moveKey({ round: game.view.round, ...data }));
  }
  if (game.busy) {
    game.refreshLater = true; // our own move is on its way: look again once it is answered
    return;
  }
  const view = await fetchView();
  if (!view || (game.view && view.version <= game.view.version)) return;
  const known = lastKnownN();
  const needed = view.last_move ? view.last_move.n : known;
  if (needed > known || (game.view && view.round !== game.view.round)) {
    try {
      await fetchMoves(); // polling (or a missed record): the moves come from the log
    } catch (err) {
      // show the view anyway
    }
  }
  enqueue(view);
}

/**
 * Shows `view` once the views before it have been shown.
 * @param {View} view
 * @returns {Promise<void>}
 */
export function enqueue(view) {
  game.queue = game.queue.then(() => present(view)).catch(showError);
  return game.queue;
}

/**
 * Plays back the moves between what is on screen and `view`, then shows `view`.
 * @param {View} view
 */
async function present(view) {
  const previous = game.shown;
  if (game.view && game.view.id === view.id && view.version < game.view.version) return;
  game.view = view;
  const fresh = game.moves.filter((m) => m.n > game.shownN);
  const wait = pace();
  if (previous && previous.status === "active" && fresh.length && wait > 0) {
    game.animating = true;
    try {
      let sim = clone(previous);
      for (const [index, move] of fresh.entries()) {
        if (move.round !== sim.round) break; // a new round deals a new floor: jump to it
        const mine = isSeated(sim) && move.seat === sim.you;
        const bot = Boolean(((sim.seats || []).find((s) => s.seat === move.seat) || { bot: null }).bot);
        if (!bot) {
          // a person's card shows at once: the bot-speed setting slows bots only
          sim = step(sim, move, view);
          game.shownN = move.n;
          draw(sim, { justPlayed: move });
          sounds.play(move);
          continue;
        }
        if (!mine) {
          draw(sim, { playing: move });
          await sleep(wait * 0.45);
        }
        sim = step(sim, move, view);
        game.shownN = move.n;
        draw(sim, { justPlayed: move });
        sounds.play(move);
        const last = index === fresh.length - 1;
        if (!last || move.round !== view.round) await sleep(wait * 0.55);
      }
    } finally {
      game.animating = false;
    }
  }
  if (fresh.length) game.shownN = Math.max(game.shownN, fresh[fresh.length - 1].n);
  if (wait <= 0 && fresh.length) sounds.play(fresh[fresh.length - 1]);
  if (wait <= 0 && previous && previous.status === "active" && (view.rounds || []).length > (previous.rounds || []).length) {
    // The round's last plays, on the table the summary speaks of (not the next deal yet).
    let sim = clone(previous);
    for (const move of fresh) if (move.round === sim.round) sim = step(sim, move, view);
    draw(sim, {});
  }
  await announceRounds(view, previous);
  if (view.status !== "active" && view.status !== "waiting" && /\binfo\b/.test($("notice").className)) setStatus("");
  draw(view, { final: true });
  signalTurn(view, previous);
  watchRematch(view);
  if (view.status === "finished" && previous && previous.status === "active") afterGame(view);
  if (game.live) game.live.seen(view.version);
  if ((view.status === "finished" || view.status === "cancelled") && game.live) {
    game.live.stop();
    game.live = null;
  }
}

/**
 * A round just scored: its summary waits for "Continue" (or a few seconds) before the next deal.
 * @param {View} view
 * @param {View | null} previous
 */
async function announceRounds(view, previous) {
  const rounds = view.rounds || [];
  if (!previous || rounds.length <= (previous.rounds || []).length) return;
  const last = rounds[rounds.length - 1];
  setStatus(t("status.round_scored", { n: last.round }), "good");
  await showRoundSummary(view, last, game.moves);
}

/**
 * "Your turn": a sound, the tab's title, and (if allowed) a notification while the tab is hidden.
 * @param {View} view
 * @param {View | null} previous
 */
function signalTurn(view, previous) {
  const mine = yourTurn(view);
  document.title = mine && document.hidden ? `\u25cf ${t("turn.title")} \u2014 ${game.baseTitle || t("app.title")}` : (game.baseTitle || t("app.title"));
  if (!mine || (previous && yourTurn(previous) && previous.version === view.version)) return;
  sounds.turn();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(t("turn.title"), { body: game.baseTitle || t("app.title"), tag: `basra-${game.id}` }); // eslint-disable-line no-new
    } catch (err) {
      // some browsers allow notifications from a service worker only
    }
  }
}

/**
 * After a game: the header's rating is current again, with the change ("+2.6") beside it.
 * @param {View} view
 */
async function afterGame(view) {
  $("live").textContent = "";
  if (!isSeated(view)) return;
  try {
    const player = await refreshPlayer();
    showPlayer(player);
    const change = ratingChange(game.ratingBefore, player.rating);
    if (change) {
      $("me-link").append(" ", el("span", { class: `rating-change ${change.startsWith("+") ? "up" : "down"}`, text: change }));
      const result = $("result");
      if (!result.hidden) result.querySelector("h2")?.after(el("p", { id: "rating-change", class: "rating-change", text: t("result.rating_change", { change }) }));
    }
  } catch (err) {
    // the header keeps its last figure
  }
}
