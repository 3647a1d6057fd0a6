// @ts-check
// The table's view: draws a view (the newest, or a step of a play-back) and says what happened in
// the notice line. It reads the state and never changes the game; what a click does is the
// actions' (handed over with onTableActions, so this module needs nothing above it).
import { el, errorText, seatName } from "./basra.js";
import { byId as $, fieldById } from "./dom.js";
import { t, tx } from "./i18n.js";
import { tickClocks } from "./clock.js";
import { ratingText } from "./player.js";
import { INVITE_KEY, game, openId, shownMoves } from "./game_state.js";
import {
  isSeated, moveKey, moveNodes, renderFloor, renderHand, renderLog, renderResult, renderRounds,
  renderScoreboard, renderSeats, renderStock, renderTurn, yourTurn,
} from "./table.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("./game_state.js").Move} Move */
/** @typedef {import("./game_state.js").Card} Card */
/** @typedef {import("./player.js").Me} Player */

export const TOUCH = window.matchMedia("(hover: none)").matches;

/**
 * What the table's controls do.
 * @typedef {object} TableActions
 * @property {(code: Card) => void} play
 * @property {(code: Card) => void} select
 * @property {(button: HTMLButtonElement) => void} rematch
 */

/** @type {TableActions} */
const actions = { play: () => {}, select: () => {}, rematch: () => {} };

/** @param {TableActions} given */
export function onTableActions(given) {
  Object.assign(actions, given);
}

// ---- messages ------------------------------------------------------------------------------

/**
 * Inside a game the notice sits under the table, in the page's flow: it never covers anything.
 * @param {string | Node | (string | Node)[]} message
 * @param {"info" | "good" | "warn" | "error"} [kind]
 */
export function setStatus(message, kind = "info") {
  const node = $("game").hidden ? $("status") : $("notice");
  const other = node.id === "status" ? $("notice") : $("status");
  other.textContent = "";
  node.replaceChildren(...(Array.isArray(message) ? message : [message || ""]));
  node.className = `status ${kind}`;
  delete node.dataset.code;
  node.removeAttribute("title");
}

/** @param {unknown} err an ApiError, or anything thrown */
export function showError(err) {
  setStatus(errorText(err), "error");
  const node = $("game").hidden ? $("status") : $("notice");
  // An ApiError's code and problem (anything else thrown that has a code shows it too).
  const { code, problem } = /** @type {{code?: unknown, problem?: {detail?: unknown}}} */ (Object(err));
  if (code) node.dataset.code = String(code);
  if (problem && problem.detail) node.title = String(problem.detail);
}

/** @param {Player} player */
export function showPlayer(player) {
  $("me-link").replaceChildren(el("bdi", { class: "me-name", text: player.name }), " ",
    el("span", { class: "me-rating", text: ratingText(player.rating) }));
  $("me-link").hidden = false;
}

/**
 * The header names the game by its players, not by its id.
 * @param {View} view
 */
export function labelGame(view) {
  const names = (view.seats || []).filter((s) => !isSeated(view) || s.seat !== view.you).map((s) => seatName(view, s.seat));
  const nodes = names.flatMap((name, index) => (index ? [t("side.joiner"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  $("game-label").replaceChildren(...tx("games.versus", { names: el("span", {}, ...nodes) }));
  game.baseTitle = `${t("games.versus", { names: names.join(t("side.joiner")) })} \u2014 ${t("app.title")}`;
  document.title = game.baseTitle;
}

// ---- drawing ----------------------------------------------------------------------------------

/**
 * Draws `view`: the newest (`final`), or a step of a play-back with the card being played or
 * just played.
 * @param {View} view
 * @param {{final?: boolean, playing?: Move | null, justPlayed?: Move | null}} [options]
 */
export function draw(view, { final = false, playing = null, justPlayed = null } = {}) {
  game.shown = view;
  $("game").hidden = false;
  const root = $("game");
  const ctx = {
    moves: shownMoves(),
    playing,
    justPlayed,
    animating: !final,
    deadline: final ? view.deadline : null,
    focusCard: game.focusCard,
    selected: final ? game.selected : null,
    touch: TOUCH,
    onPlay: actions.play,
    onSelect: actions.select,
    onFocus: (/** @type {Card} */ code) => { game.focusCard = code; },
  };
  root.dataset.animating = String(!final);
  root.dataset.yourTurn = String(final && yourTurn(view));
  if (final) {
    root.dataset.status = view.status;
    root.dataset.version = String(view.version);
    root.dataset.turn = view.turn === null || view.turn === undefined ? "" : String(view.turn);
    root.dataset.you = isSeated(view) ? String(view.you) : "";
    root.dataset.players = String((view.seats || []).length);
  }
  drawJoinAndShare(view);
  renderScoreboard(view, ctx.moves);
  renderSeats(view, ctx);
  renderStock(view);
  renderFloor(view, ctx);
  const shownMove = playing || view.last_move;
  $("last-move").replaceChildren(...(shownMove ? moveNodes(view, shownMove, game.timedOut.has(moveKey(shownMove))) : []));
  renderTurn(view, ctx);
  renderHand(view, ctx);
  renderRounds(view, ctx.moves);
  renderResult(view, openId(), resultExtras(view));
  renderLog(view, ctx.moves, game.timedOut);
  drawTools(view, final);
}

/** The log again, with the timed-out marks known now. */
export function redrawLog() {
  if (game.shown) renderLog(game.shown, shownMoves(), game.timedOut);
}

/** The result panel again (a rematch offer came). */
export function redrawResult() {
  if (game.view) renderResult(game.view, openId(), resultExtras(game.view));
}

/**
 * @param {View} view
 * @returns {string}
 */
function shareLink(view) {
  const invite = localStorage.getItem(INVITE_KEY(view.id || openId()));
  // The invite goes in the fragment: browsers never send it to a server, so no log holds it.
  return `${location.origin}/play/${encodeURIComponent(view.id || openId())}${invite ? `#invite=${encodeURIComponent(invite)}` : ""}`;
}

/** @param {View} view */
function drawJoinAndShare(view) {
  const spectator = !isSeated(view);
  const openSeats = (view.seats || []).filter((s) => !s.name && !s.bot).length;
  $("join").hidden = !(spectator && view.status === "waiting" && openSeats > 0);
  if (!$("join").hidden && !fieldById("join-name").value) fieldById("join-name").value = localStorage.getItem("basra:name") || "";
  const others = (view.seats || []).filter((s) => s.name && !s.bot).map((s) => s.name);
  const who = others.flatMap((name, index) => (index ? [t("list.comma"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  $("join-who").replaceChildren(...(others.length ? tx("join.waiting_for_you", { names: el("span", {}, ...who), count: others.length }) : []));
  const invite = localStorage.getItem(INVITE_KEY(view.id || openId()));
  const share = $("share");
  share.hidden = !(view.status === "waiting" && (!spectator || invite));
  if (!share.hidden) {
    fieldById("share-link").value = shareLink(view);
    $("share-label").textContent = t("share.waiting", { count: openSeats });
  }
}

/**
 * @param {View} view
 * @param {boolean} final
 */
function drawTools(view, final) {
  const clockOn = Boolean(view.deadline) && view.status === "active";
  $("clock").hidden = !(final && clockOn);
  if (final) {
    $("clock").dataset.deadline = clockOn && view.deadline ? view.deadline : "";
    tickClocks(game.shown);
  }
  // Resigning came with the turn clock (API.md 13-14): a view with `deadline` offers it.
  $("resign").hidden = !(isSeated(view) && view.status === "active" && "deadline" in view);
}

/**
 * What the result panel adds below the headline: the rematch button for a seat, which says so
 * once another seat has asked for one.
 * @param {View} view
 * @returns {HTMLElement[]}
 */
function resultExtras(view) {
  if (!isSeated(view) || view.status !== "finished") return [];
  const offered = game.rematchOffer && game.rematchOffer.from === (view.id || game.id);
  const button = /** @type {HTMLButtonElement} */ (el("button", { id: "rematch", type: "button", class: "primary",
    "data-offered": offered ? "true" : null, text: t(offered ? "result.rematch_accept" : "result.rematch") }));
  button.addEventListener("click", () => actions.rematch(button));
  /** @type {(string | HTMLElement)[]} */
  const parts = [button];
  if (offered) parts.unshift(el("span", { id: "rematch-offer", class: "rematch-offer", text: t("result.rematch_offered") }), " ");
  return [el("p", { class: "result-rematch" }, ...parts)];
}
