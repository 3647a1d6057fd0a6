// The lobby and the table. Talks to the service only through API.md: the game's public stream
// (or polling) says when something changed, GET /games/{id} with If-None-Match fetches the view,
// and the moves of each change are played back one by one so bot plays can be followed.
import { api, loadSeat, saveSeat, cardText, el, errorText, seatName, timedOutMoves } from "./basra.js";
import { initI18n, t, tx } from "./i18n.js";
import { showRoundSummary } from "./summary.js";
import { tickClocks } from "./clock.js";
import { listMyGames, listOpenGames } from "./gamelists.js";
import { clone, step } from "./playback.js";
import { sounds } from "./sound.js";
import { gameRequest, loadLobby } from "./lobby.js";
import { ensurePlayer, playerToken, ratingText, renamePlayer, refreshPlayer, ratingChange } from "./player.js";
import { BOT_AFTER_SECONDS, cancelSeek, startSeek } from "./seek.js";
import { Live } from "./live.js";
import {
  highlight, isSeated, moveKey, moveNodes, renderFloor, renderHand, renderLog, renderResult, renderRounds,
  renderScoreboard, renderSeats, renderStock, renderTurn, yourTurn,
} from "./table.js";

const $ = (id) => document.getElementById(id);
const PACE_KEY = "basra:pace";
const INVITE_KEY = (id) => `basra:invite:${id}`;

const game = {
  id: null,
  token: null,
  view: null, // the newest view received
  shown: null, // what is on screen (a step of a play-back, or the newest view)
  etag: null,
  moves: [], // every move known, in order (public)
  shownN: 0, // moves up to this n are on screen
  busy: false,
  animating: false,
  queue: Promise.resolve(),
  live: null,
  focusCard: null,
  selected: null, // on a touch screen: the card tapped once, shown with what it would take
  timedOut: new Set(), // moves the server played for a seat whose time ran out (moveKey)
  clockTimer: null,
  ratingBefore: null, // this browser's player's rating when the game opened
};
const TOUCH = window.matchMedia("(hover: none)").matches;

// ---- messages ------------------------------------------------------------------------------

// Inside a game the notice sits under the table, in the page's flow: it never covers anything.
function setStatus(message, kind = "info") {
  const node = $("game").hidden ? $("status") : $("notice");
  const other = node.id === "status" ? $("notice") : $("status");
  other.textContent = "";
  node.replaceChildren(...(Array.isArray(message) ? message : [message || ""]));
  node.className = `status ${kind}`;
  delete node.dataset.code;
  node.removeAttribute("title");
}

function showError(err) {
  setStatus(errorText(err), "error");
  const node = $("game").hidden ? $("status") : $("notice");
  if (err && err.code) node.dataset.code = err.code;
  if (err && err.problem && err.problem.detail) node.title = err.problem.detail;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function pace() {
  const stored = Number(localStorage.getItem(PACE_KEY));
  return Number.isFinite(stored) && localStorage.getItem(PACE_KEY) !== null ? stored : 800;
}

// ---- the lobby -------------------------------------------------------------------------------

function playerName() {
  const name = $("name").value.trim() || t("lobby.default_name");
  localStorage.setItem("basra:name", name);
  return name;
}

// This browser's player under the name typed in the lobby, or null where the server has none:
// the page then plays with seat tokens alone, as every seat still can.
async function namedPlayer(name) {
  try {
    const player = await renamePlayer(name);
    showPlayer(player);
    return player;
  } catch (err) {
    if (err.status === 0 || err.status >= 500 || err.status === 429) throw err;
    return null;
  }
}

function showPlayer(player) {
  $("me-link").replaceChildren(el("bdi", { class: "me-name", text: player.name }), " ",
    el("span", { class: "me-rating", text: ratingText(player.rating) }));
  $("me-link").hidden = false;
}

// The seat a create or join answer gave this browser: its player's (acting with the player's
// bearer), else the one whose own token came back.
function keepSeat(gameId, seats, player) {
  const held = player && (seats || []).find((s) => s.player === player.id);
  if (held) {
    saveSeat(gameId, held.seat, player.token);
    return held;
  }
  const mine = (seats || []).find((s) => s.token);
  if (mine) saveSeat(gameId, mine.seat, mine.token);
  return mine || null;
}

async function createGame(event) {
  event.preventDefault();
  $("start").disabled = true;
  let body;
  let player;
  try {
    const name = playerName();
    player = await namedPlayer(name);
    body = gameRequest(name, $("seed").value.trim(), Boolean(player));
  } catch (err) {
    showError(err);
    $("start").disabled = false;
    return;
  }
  setStatus(t("status.creating"));
  try {
    const { data } = await api("POST", "/games", { body, token: player ? player.token : null });
    const mine = keepSeat(data.id, data.seats, player);
    if (data.invite) localStorage.setItem(INVITE_KEY(data.id), data.invite);
    else if (!mine) localStorage.setItem(`basra:watch:${data.id}`, "1");
    history.pushState({}, "", `/play/${encodeURIComponent(data.id)}`);
    await openGame(data.id, data.state, data.moves || []);
  } catch (err) {
    showError(err);
  } finally {
    $("start").disabled = false;
  }
}

async function showLobby() {
  document.title = t("app.title");
  $("lobby").hidden = false;
  $("game").hidden = true;
  $("join").hidden = true;
  $("game-label").textContent = "";
  $("name").value = localStorage.getItem("basra:name") || "";
  ensurePlayer().then((player) => {
    showPlayer(player);
    if (!$("name").value) $("name").value = player.name;
  }).catch(() => {}); // the lobby works without a player
  listMyGames();
  listOpenGames();
  try {
    await loadLobby();
  } catch (err) {
    showError(err);
  }
}

// ---- opening and following a game ------------------------------------------------------------

function addMoves(moves) {
  for (const move of moves || []) {
    if (!move || typeof move.n !== "number") continue;
    if (!game.moves.some((m) => m.n === move.n)) game.moves.push(move);
  }
  game.moves.sort((a, b) => a.n - b.n);
}

async function fetchView() {
  const headers = {};
  if (game.etag) headers["If-None-Match"] = game.etag;
  const res = await api("GET", `/games/${encodeURIComponent(game.id)}`, { token: game.token, headers });
  if (res.status === 304) return null;
  game.etag = res.headers.get("ETag");
  return res.data;
}

async function fetchMoves() {
  const { data } = await api("GET", `/games/${encodeURIComponent(game.id)}/moves`);
  addMoves((data && data.moves) || []);
}

function inviteFromLink() {
  const match = location.hash.match(/(?:^#|&)invite=([^&]+)/);
  return match ? decodeURIComponent(match[1]) : null;
}

async function openGame(id, initialView = null, initialMoves = []) {
  game.id = id;
  // The seat's own token, or the player's that holds it. Opened from an address, the player's
  // bearer is tried: a player who holds no seat of this game is answered 403 and watches (below).
  game.token = (loadSeat(id) || {}).token || (initialView ? null : playerToken());
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
      if (game.token && (err.status === 401 || err.status === 403)) {
        game.token = null; // a stale token: carry on as a spectator
        view = await fetchView();
      } else {
        throw err;
      }
    }
  }
  addMoves(initialMoves);
  try {
    if (view.status !== "waiting") await fetchMoves();
  } catch (err) {
    // the table shows without the log
  }
  // What was played before the page opened is history, not something to play back.
  game.shownN = game.moves.length ? game.moves[game.moves.length - 1].n : 0;
  game.view = view;
  labelGame(view);
  game.rematchOffer = null;
  draw(view, { final: true });
  watchRematch(view);
  $("status").textContent = ""; // "Creating the game..." is done
  startLive(view);
  loadTimeouts().catch(() => {}); // the log shows without the marks
}

// The header names the game by its players, not by its id.
function labelGame(view) {
  const names = (view.seats || []).filter((s) => !isSeated(view) || s.seat !== view.you).map((s) => seatName(view, s.seat));
  const nodes = names.flatMap((name, index) => (index ? [t("side.joiner"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  $("game-label").replaceChildren(...tx("games.versus", { names: el("span", {}, ...nodes) }));
  game.baseTitle = `${t("games.versus", { names: names.join(t("side.joiner")) })} \u2014 ${t("app.title")}`;
  document.title = game.baseTitle;
}

// Which plays the server made for a seat whose time ran out: TurnTimedOut in the game's log.
async function loadTimeouts() {
  const { data } = await api("GET", `/games/${encodeURIComponent(game.id)}/events?after=0`, { token: game.token });
  for (const key of timedOutMoves((data && data.events) || [])) game.timedOut.add(key);
  if (game.shown && game.timedOut.size) renderLog(game.shown, game.moves.filter((m) => m.n <= game.shownN), game.timedOut);
}

function startLive(view) {
  if (game.live) game.live.stop();
  if (view.status === "finished" || view.status === "cancelled") return;
  game.live = new Live(game.id, {
    version: view.version,
    onChange: (records) => refresh(records).catch((err) => {
      showError(err);
      throw err;
    }),
    onMode: (mode) => {
      $("game").dataset.live = mode;
      const over = game.view && (game.view.status === "finished" || game.view.status === "cancelled");
      $("live").textContent = over ? "" : mode === "stream" ? t("live.stream") : mode === "polling" ? t("live.polling") : "";
    },
  });
}

// Something changed (a stream record, or a poll tick): fetch the view, then show it.
async function refresh(records) {
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
  const known = game.moves.length ? game.moves[game.moves.length - 1].n : 0;
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

function enqueue(view) {
  game.queue = game.queue.then(() => present(view)).catch(showError);
  return game.queue;
}

// ---- playing moves back one at a time (playback.js works out each step) ----------------------

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
        const bot = Boolean(((sim.seats || []).find((s) => s.seat === move.seat) || {}).bot);
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

// A round just scored: its summary waits for "Continue" (or a few seconds) before the next deal.
async function announceRounds(view, previous) {
  const rounds = view.rounds || [];
  if (!previous || rounds.length <= (previous.rounds || []).length) return;
  const last = rounds[rounds.length - 1];
  setStatus(t("status.round_scored", { n: last.round }), "good");
  await showRoundSummary(view, last, game.moves);
}

// "Your turn": a sound, the tab's title, and (if allowed) a notification while the tab is hidden.
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

// After a game: the header's rating is current again, with the change ("+2.6") beside it.
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

// ---- drawing ----------------------------------------------------------------------------------

function draw(view, { final = false, playing = null, justPlayed = null } = {}) {
  game.shown = view;
  $("game").hidden = false;
  const root = $("game");
  const ctx = {
    moves: game.moves.filter((m) => m.n <= game.shownN),
    playing,
    justPlayed,
    animating: !final,
    deadline: final ? view.deadline : null,
    focusCard: game.focusCard,
    selected: final ? game.selected : null,
    touch: TOUCH,
    onPlay: playCard,
    onSelect: selectCard,
    onFocus: (code) => { game.focusCard = code; },
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
  renderResult(view, game.id, resultExtras(view));
  renderLog(view, ctx.moves, game.timedOut);
  drawTools(view, final);
}

function shareLink(view) {
  const invite = localStorage.getItem(INVITE_KEY(view.id || game.id));
  // The invite goes in the fragment: browsers never send it to a server, so no log holds it.
  return `${location.origin}/play/${encodeURIComponent(view.id || game.id)}${invite ? `#invite=${encodeURIComponent(invite)}` : ""}`;
}

function drawJoinAndShare(view) {
  const spectator = !isSeated(view);
  const openSeats = (view.seats || []).filter((s) => !s.name && !s.bot).length;
  $("join").hidden = !(spectator && view.status === "waiting" && openSeats > 0);
  if (!$("join").hidden && !$("join-name").value) $("join-name").value = localStorage.getItem("basra:name") || "";
  const others = (view.seats || []).filter((s) => s.name && !s.bot).map((s) => s.name);
  const who = others.flatMap((name, index) => (index ? [t("list.comma"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  $("join-who").replaceChildren(...(others.length ? tx("join.waiting_for_you", { names: el("span", {}, ...who), count: others.length }) : []));
  const invite = localStorage.getItem(INVITE_KEY(view.id || game.id));
  const share = $("share");
  share.hidden = !(view.status === "waiting" && (!spectator || invite));
  if (!share.hidden) {
    $("share-link").value = shareLink(view);
    $("share-label").textContent = t("share.waiting", { count: openSeats });
  }
}

function drawTools(view, final) {
  const clockOn = Boolean(view.deadline) && view.status === "active";
  $("clock").hidden = !(final && clockOn);
  if (final) {
    $("clock").dataset.deadline = clockOn ? view.deadline : "";
    tickClocks(game.shown);
  }
  // Resigning came with the turn clock (API.md 13-14): a view with `deadline` offers it.
  $("resign").hidden = !(isSeated(view) && view.status === "active" && "deadline" in view);
}

// ---- acting ---------------------------------------------------------------------------------------

function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function playCard(code) {
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
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/moves`, {
      token: game.token,
      body: { card: code },
      headers: { "Idempotency-Key": newKey(), "If-Match": `"${view.version}"` },
    });
    setStatus("");
    addMoves(data.moves || []);
    game.busy = false;
    await enqueue(data.state);
  } catch (err) {
    showError(err);
    if (err.status === 409 || err.status === 412) game.etag = null; // the next look refreshes
  } finally {
    game.busy = false;
    if (game.refreshLater) {
      game.refreshLater = false;
      refresh([]).catch(showError);
    }
  }
}

async function joinGame(event) {
  event.preventDefault();
  const name = $("join-name").value.trim() || t("lobby.default_name");
  localStorage.setItem("basra:name", name);
  const seed = $("join-seed").value.trim();
  const body = seed ? { name, seed } : { name };
  const invite = inviteFromLink();
  if (invite) body.invite = invite;
  try {
    setStatus(t("status.joining"));
    const player = await namedPlayer(name);
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/join`,
      { body, token: player ? player.token : null });
    game.token = player ? player.token : data.token;
    saveSeat(game.id, data.seat, game.token);
    game.etag = null;
    if (invite) history.replaceState({}, "", location.pathname); // the invite has done its job
    setStatus(t("status.joined"));
    addMoves(data.moves || []);
    await enqueue(data.state);
  } catch (err) {
    showError(err);
  }
}

async function resign(event) {
  if (event.target.returnValue !== "resign") return;
  try {
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/resign`, { token: game.token });
    setStatus(t("status.resigned"));
    if (data && data.state) await enqueue(data.state);
  } catch (err) {
    showError(err);
  }
}

function onKey(event) {
  const target = event.target;
  if (target && /^(INPUT|SELECT|TEXTAREA|DIALOG)$/.test(target.tagName)) return;
  if (event.altKey || event.ctrlKey || event.metaKey || $("resign-dialog").open) return;
  if (!/^[1-9]$/.test(event.key) || !game.view || !game.view.hand || $("game").hidden) return;
  const code = game.view.hand[Number(event.key) - 1];
  if (code) {
    event.preventDefault();
    playCard(code);
  }
}

async function copyLink() {
  const input = $("share-link");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    setStatus(t("status.copied"), "good");
  } catch (err) {
    setStatus(t("status.copy_yourself"), "warn");
  }
}

// ---- start --------------------------------------------------------------------------------------

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

// On a touch screen the first tap selects a card (the table shows what it would take), the
// second tap on it, or the Play button, plays it.
function selectCard(code) {
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

// What the result panel adds below the headline: the rematch button for a seat, which says so
// once another seat has asked for one.
function resultExtras(view) {
  if (!isSeated(view) || view.status !== "finished") return [];
  const offered = game.rematchOffer && game.rematchOffer.from === (view.id || game.id);
  const button = el("button", { id: "rematch", type: "button", class: "primary",
    "data-offered": offered ? "true" : null, text: t(offered ? "result.rematch_accept" : "result.rematch") });
  button.addEventListener("click", () => rematch(button));
  const parts = [button];
  if (offered) parts.unshift(el("span", { id: "rematch-offer", class: "rematch-offer", text: t("result.rematch_offered") }), " ");
  return [el("p", { class: "result-rematch" }, ...parts)];
}

// After a game with other people at the table: its log says when one of them asks for a rematch
// (RematchOffered). Looked at every few seconds while the offer could stand (5 minutes).
async function watchRematch(view) {
  const id = view.id || game.id;
  const people = (view.seats || []).filter((s) => !s.bot && s.seat !== view.you).length;
  if (!isSeated(view) || view.status !== "finished" || !people || game.rematchWatch === id) return;
  game.rematchWatch = id;
  for (let round = 0; round < 100 && game.id === id && !game.rematchOffer; round += 1) {
    try {
      const { data } = await api("GET", `/games/${encodeURIComponent(id)}/events?after=0`);
      const offer = ((data && data.events) || []).find((e) => e.type === "RematchOffered");
      if (offer && game.id === id) {
        game.rematchOffer = { from: id, to: offer.data && offer.data.game_id };
        renderResult(game.view, game.id, resultExtras(game.view));
        return;
      }
    } catch (err) {
      // try again at the next look
    }
    await sleep(3000);
  }
}

// POST /games/{id}/rematch: every seat's call gets the same new game (API.md 23).
async function rematch(button) {
  button.disabled = true;
  try {
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/rematch`, { token: game.token });
    // The caller sits where it sat: its seat comes back with a token of its own.
    const player = await ensurePlayer().catch(() => null);
    const mine = (data.seats || []).find((s) => s.token) || null;
    if (mine) saveSeat(data.id, mine.seat, mine.token);
    else keepSeat(data.id, data.seats, player);
    history.pushState({}, "", `/play/${encodeURIComponent(data.id)}`);
    if (game.live) game.live.stop();
    game.live = null;
    game.ratingBefore = null;
    await openGame(data.id, data.state || null, data.moves || []);
  } catch (err) {
    showError(err);
    button.disabled = false;
  }
}

async function start() {
  await initI18n();
  sounds.setup($("sound"));
  $("setup-form").addEventListener("submit", createGame);
  $("online-bot-label").textContent = t("online.bot_after", { n: BOT_AFTER_SECONDS });
  $("seek").addEventListener("click", seekOnline);
  $("seek-cancel").addEventListener("click", () => cancelSeek(showError));
  $("join-form").addEventListener("submit", joinGame);
  $("copy-link").addEventListener("click", copyLink);
  $("resign").addEventListener("click", () => {
    $("resign-dialog").returnValue = "";
    $("resign-dialog").showModal();
  });
  $("resign-dialog").addEventListener("close", () => resign({ target: $("resign-dialog") }));
  $("pace").value = String(pace());
  if (!$("pace").value) $("pace").value = "800";
  $("pace").addEventListener("change", () => localStorage.setItem(PACE_KEY, $("pace").value));
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
