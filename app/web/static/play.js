// @ts-check
// The play page: the lobby, and the table's parts wired together. The table is cut by role:
// game_state.js (what is known and shown), game_stream.js (following the game), game_playback.js
// (showing each change, move by move), game_actions.js (what the player does) and game_view.js
// (drawing). Talks to the service only through API.md.
import { api } from "./basra.js";
import { byId as $, fieldById } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { tickClocks } from "./clock.js";
import { listMyGames, listOpenGames } from "./gamelists.js";
import { sounds } from "./sound.js";
import { gameRequest, loadLobby } from "./lobby.js";
import { ensurePlayer } from "./player.js";
import { BOT_AFTER_SECONDS, cancelSeek, startSeek } from "./seek.js";
import { INVITE_KEY, PACE_KEY, game, pace } from "./game_state.js";
import { openGame } from "./game_playback.js";
import {
  copyLink, joinGame, keepSeat, namedPlayer, onKey, playCard, rematch, resign, selectCard,
} from "./game_actions.js";
import { TOUCH, onTableActions, setStatus, showError, showPlayer } from "./game_view.js";
import { highlight } from "./table.js";

/** @typedef {import("../generated/basra").components["schemas"]["CreatedGame"]} CreatedGame */

// ---- the lobby -------------------------------------------------------------------------------

function playerName() {
  const name = fieldById("name").value.trim() || t("lobby.default_name");
  localStorage.setItem("basra:name", name);
  return name;
}

/** @param {SubmitEvent} event */
async function createGame(event) {
  event.preventDefault();
  const start = /** @type {HTMLButtonElement} */ ($("start"));
  start.disabled = true;
  let body;
  let player;
  try {
    const name = playerName();
    player = await namedPlayer(name);
    body = gameRequest(name, fieldById("seed").value.trim(), Boolean(player));
  } catch (err) {
    showError(err);
    start.disabled = false;
    return;
  }
  setStatus(t("status.creating"));
  try {
    /** @type {{data: CreatedGame}} */
    const { data } = await api("POST", "/games", { body, token: player ? player.token : null });
    const mine = keepSeat(data.id, data.seats, player);
    if (data.invite) localStorage.setItem(INVITE_KEY(data.id), data.invite);
    else if (!mine) localStorage.setItem(`basra:watch:${data.id}`, "1");
    history.pushState({}, "", `/play/${encodeURIComponent(data.id)}`);
    await openGame(data.id, data.state, data.moves || []);
  } catch (err) {
    showError(err);
  } finally {
    start.disabled = false;
  }
}

async function showLobby() {
  document.title = t("app.title");
  $("lobby").hidden = false;
  $("game").hidden = true;
  $("join").hidden = true;
  $("game-label").textContent = "";
  fieldById("name").value = localStorage.getItem("basra:name") || "";
  ensurePlayer().then((player) => {
    showPlayer(player);
    // The player's name fills an empty field, unless someone is typing in it: what they type
    // is not put after it.
    const field = fieldById("name");
    if (!field.value && document.activeElement !== field) field.value = player.name;
  }).catch(() => {}); // the lobby works without a player
  listMyGames();
  listOpenGames();
  try {
    await loadLobby();
  } catch (err) {
    showError(err);
  }
}

/** @param {string} gameId */
function openMatched(gameId) {
  history.pushState({}, "", `/play/${encodeURIComponent(gameId)}`);
  openGame(gameId).catch(showError);
}

async function seekOnline() {
  try {
    await namedPlayer(playerName());
  } catch (err) {
    showError(err);
    return;
  }
  setStatus("");
  startSeek(openMatched, showError);
}

// ---- start --------------------------------------------------------------------------------------

async function start() {
  await initI18n();
  onTableActions({ play: playCard, select: selectCard, rematch });
  sounds.setup($("sound"));
  $("setup-form").addEventListener("submit", createGame);
  $("online-bot-label").textContent = t("online.bot_after", { n: BOT_AFTER_SECONDS });
  $("seek").addEventListener("click", seekOnline);
  $("seek-cancel").addEventListener("click", () => cancelSeek(showError));
  $("join-form").addEventListener("submit", joinGame);
  $("copy-link").addEventListener("click", copyLink);
  const dialog = /** @type {HTMLDialogElement} */ ($("resign-dialog"));
  $("resign").addEventListener("click", () => {
    dialog.returnValue = "";
    dialog.showModal();
  });
  dialog.addEventListener("close", () => { resign(); });
  const paceField = fieldById("pace");
  paceField.value = String(pace());
  if (!paceField.value) paceField.value = "800";
  paceField.addEventListener("change", () => localStorage.setItem(PACE_KEY, paceField.value));
  $("floor").addEventListener("mouseleave", () => { if (!TOUCH) highlight(game.view, null); });
  $("play-selected").addEventListener("click", () => { if (game.selected) playCard(game.selected); });
  if ("Notification" in window && Notification.permission === "default") {
    $("notify").hidden = false;
    $("notify").addEventListener("click", () => {
      Notification.requestPermission().finally(() => { $("notify").hidden = true; });
    });
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden && game.baseTitle) document.title = game.baseTitle; });
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => location.reload());
  game.clockTimer = setInterval(() => tickClocks(game.shown), 250);

  const match = location.pathname.match(/^\/play\/([^/]+)\/?$/);
  if (match) {
    openGame(decodeURIComponent(match[1])).catch((err) => {
      showError(err);
      if (err.status === 404) $("game").hidden = true;
    });
  } else {
    showLobby();
  }
}

start();
