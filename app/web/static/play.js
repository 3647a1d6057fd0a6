// The lobby and the table. Talks to the service only through API.md: the game's public stream
// (or polling) says when something changed, GET /games/{id} with If-None-Match fetches the view,
// and the moves of each change are played back one by one so bot plays can be followed.
import { api, ApiError, loadSeat, saveSeat, cardText, el } from "./basra.js";
import { gameRequest, loadLobby } from "./lobby.js";
import { ensurePlayer, playerToken, ratingText, renamePlayer } from "./player.js";
import { BOT_AFTER_SECONDS, cancelSeek, startSeek } from "./seek.js";
import { Live } from "./live.js";
import {
  highlight, isSeated, moveText, renderFloor, renderHand, renderLog, renderResult, renderRounds,
  renderScoreboard, renderSeats, renderStock, renderTurn, sideLabel, yourTurn,
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
  clockTimer: null,
};

// ---- messages ------------------------------------------------------------------------------

// Inside a game the notice sits under the table, in the page's flow: it never covers anything.
function setStatus(message, kind = "info") {
  const node = $("game").hidden ? $("status") : $("notice");
  const other = node.id === "status" ? $("notice") : $("status");
  other.textContent = "";
  node.textContent = message || "";
  node.className = `status ${kind}`;
}

function showError(err) {
  const message = err instanceof ApiError ? err.message : String(err && err.message ? err.message : err);
  setStatus(message, "error");
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function pace() {
  const stored = Number(localStorage.getItem(PACE_KEY));
  return Number.isFinite(stored) && localStorage.getItem(PACE_KEY) !== null ? stored : 800;
}

// ---- the lobby -------------------------------------------------------------------------------

function playerName() {
  const name = $("name").value.trim() || "Player";
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
  $("me-link").textContent = `${player.name} (${ratingText(player.rating)})`;
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
  setStatus("Creating the game\u2026");
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
  document.title = "Basra";
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

function listMyGames() {
  const items = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (key && key.startsWith("basra:seat:")) items.push(key.slice("basra:seat:".length));
  }
  $("my-games-list").replaceChildren(...items.slice(-8).reverse().map((id) =>
    el("li", {}, el("a", { href: `/play/${encodeURIComponent(id)}`, text: `Game ${id}` }))));
  $("my-games").hidden = items.length === 0;
}

async function listOpenGames() {
  try {
    const { data } = await api("GET", "/games?status=waiting&limit=10");
    const games = (data && data.games) || [];
    $("open-games-list").replaceChildren(...games.filter((g) => g && g.id).map((g) => {
      const names = (g.seats || []).map((s) => s.name || (s.bot ? `${s.bot} bot` : null)).filter(Boolean);
      const seats = (g.seats || []).length;
      const label = `${names.length ? names.join(", ") : `Game ${g.id}`} \u2014 ${seats} players, waiting`;
      return el("li", {}, el("a", { href: `/play/${encodeURIComponent(g.id)}`, text: label }));
    }));
    $("open-games").hidden = $("open-games-list").children.length === 0;
  } catch (err) {
    $("open-games").hidden = true; // the lobby works without the list
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
  $("game-label").textContent = `Game ${id}`;
  document.title = `Basra \u2014 game ${id}`;
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
  draw(view, { final: true });
  $("status").textContent = ""; // "Creating the game..." is done
  startLive(view);
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
      $("live").textContent = mode === "stream" ? "\u25cf live" : mode === "polling" ? "updating every second" : "";
    },
  });
}

// Something changed (a stream record, or a poll tick): fetch the view, then show it.
async function refresh(records) {
  if (!game.id) return;
  for (const { event, data } of records) if (event === "move" && data) addMoves([data]);
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

// ---- playing moves back one at a time --------------------------------------------------------

function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

// The view after `move`, worked out from the one before (public facts only).
function step(before, move, final) {
  const next = clone(before);
  const count = (next.seats || []).length;
  const seat = (next.seats || []).find((s) => s.seat === move.seat);
  if (seat) seat.hand_size = Math.max(0, (seat.hand_size ?? 0) - 1);
  if (isSeated(next) && move.seat === next.you) next.hand = (next.hand || []).filter((c) => c !== move.card);
  const side = (next.sides || []).find((s) => (s.seats || []).includes(move.seat));
  if (move.captured && move.captured.length) {
    const taken = new Set(move.captured);
    next.floor = (next.floor || []).filter((c) => !taken.has(c));
    if (side) {
      side.captured = (side.captured ?? 0) + move.captured.length + 1;
      if (move.basra === "basra") side.basras = (side.basras ?? 0) + 1;
      if (move.basra === "jack_basra") side.jack_basras = (side.jack_basras ?? 0) + 1;
    }
  } else {
    next.floor = [...(next.floor || []), move.card];
  }
  next.last_move = move;
  next.turn = count ? (move.seat + 1) % count : null;
  delete next.legal_moves;
  delete next.deadline;
  if ((next.seats || []).every((s) => !s.hand_size) && next.stock > 0) {
    // a new deal of four cards each, within the round
    for (const s of next.seats) s.hand_size = 4;
    next.stock = Math.max(0, next.stock - 4 * count);
    if (isSeated(next)) next.hand = final.round === next.round ? [...(final.hand || [])] : [];
  }
  return next;
}

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
        if (!mine) {
          draw(sim, { playing: move });
          await sleep(wait * 0.45);
        }
        sim = step(sim, move, view);
        game.shownN = move.n;
        draw(sim, { justPlayed: move });
        const last = index === fresh.length - 1;
        if (!last || move.round !== view.round) await sleep(wait * 0.55);
      }
    } finally {
      game.animating = false;
    }
  }
  if (fresh.length) game.shownN = Math.max(game.shownN, fresh[fresh.length - 1].n);
  announceRounds(view, previous);
  draw(view, { final: true });
  if (game.live) game.live.seen(view.version);
  if ((view.status === "finished" || view.status === "cancelled") && game.live) {
    game.live.stop();
    game.live = null;
  }
}

function announceRounds(view, previous) {
  const rounds = view.rounds || [];
  if (!previous || rounds.length <= (previous.rounds || []).length) return;
  const last = rounds[rounds.length - 1];
  const parts = (last.points || []).map((p, side) => `${sideLabel(view, side)} ${p}`);
  setStatus(`Round ${last.round} scored: ${parts.join(", ")}.`, "good");
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
    onPlay: playCard,
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
  $("last-move").textContent = shownMove
    ? (playing ? `${moveText(view, { ...playing, captured: playing.captured })}` : moveText(view, shownMove)) : "";
  renderTurn(view, ctx);
  renderHand(view, ctx);
  renderRounds(view, ctx.moves);
  renderResult(view, game.id);
  renderLog(view, ctx.moves);
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
  $("join-who").textContent = others.length
    ? `${others.join(", ")} ${others.length > 1 ? "are" : "is"} waiting for you.` : "";
  const invite = localStorage.getItem(INVITE_KEY(view.id || game.id));
  const share = $("share");
  share.hidden = !(view.status === "waiting" && (!spectator || invite));
  if (!share.hidden) {
    $("share-link").value = shareLink(view);
    $("share-label").textContent = `Waiting for ${openSeats === 1 ? "one more player" : `${openSeats} more players`}. Send this link:`;
  }
}

function drawTools(view, final) {
  const clockOn = Boolean(view.deadline) && view.status === "active";
  $("clock").hidden = !(final && clockOn);
  if (final) {
    $("clock").dataset.deadline = clockOn ? view.deadline : "";
    tickClocks();
  }
  // Resigning came with the turn clock (API.md 13-14): a view with `deadline` offers it.
  $("resign").hidden = !(isSeated(view) && view.status === "active" && "deadline" in view);
}

function clockText(deadline) {
  const left = Math.max(0, Date.parse(deadline) - Date.now());
  const seconds = Math.ceil(left / 1000);
  const two = (n) => String(n).padStart(2, "0");
  // A game with no turn clock shows its idle limit (a day by default): hours, then minutes.
  const text = seconds >= 3600
    ? `${Math.floor(seconds / 3600)}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`
    : `${Math.floor(seconds / 60)}:${two(seconds % 60)}`;
  return { seconds, text };
}

function tickClocks() {
  const clock = $("clock");
  const view = game.shown;
  if (!clock.hidden && clock.dataset.deadline && view) {
    const { seconds, text } = clockText(clock.dataset.deadline);
    const whose = yourTurn(view) ? "Your time" : `${view.turn !== null ? sideLabelForSeat(view, view.turn) : ""} time`;
    clock.textContent = `${whose}: ${text}`;
    clock.dataset.seconds = String(seconds);
    clock.classList.toggle("low", seconds <= 10);
  }
  for (const node of document.querySelectorAll(".seat-clock[data-deadline]")) {
    const { seconds, text } = clockText(node.dataset.deadline);
    node.textContent = ` \u00b7 ${text}`;
    node.classList.toggle("low", seconds <= 10);
  }
}

function sideLabelForSeat(view, seat) {
  const entry = (view.seats || []).find((s) => s.seat === seat);
  return entry ? (entry.name || `Seat ${seat + 1}`) + "'s" : "";
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
    setStatus("Wait a moment: the last plays are still being shown.", "warn");
    return;
  }
  if (!yourTurn(view)) {
    setStatus(view.status === "active" ? "Wait for your turn." : "The game is not in play.", "warn");
    return;
  }
  game.busy = true;
  game.focusCard = null;
  setStatus(`Playing ${cardText(code)}\u2026`);
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
  const name = $("join-name").value.trim() || "Player";
  localStorage.setItem("basra:name", name);
  const seed = $("join-seed").value.trim();
  const body = seed ? { name, seed } : { name };
  const invite = inviteFromLink();
  if (invite) body.invite = invite;
  try {
    setStatus("Joining\u2026");
    const player = await namedPlayer(name);
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/join`,
      { body, token: player ? player.token : null });
    game.token = player ? player.token : data.token;
    saveSeat(game.id, data.seat, game.token);
    game.etag = null;
    if (invite) history.replaceState({}, "", location.pathname); // the invite has done its job
    setStatus("You joined the game.");
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
    setStatus("You resigned.");
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
    setStatus("Link copied.", "good");
  } catch (err) {
    setStatus("Select the link and copy it.", "warn");
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

function start() {
  $("setup-form").addEventListener("submit", createGame);
  $("online-bot-seconds").textContent = String(BOT_AFTER_SECONDS);
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
  $("floor").addEventListener("mouseleave", () => highlight(game.view, null));
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => location.reload());
  game.clockTimer = setInterval(tickClocks, 250);

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
