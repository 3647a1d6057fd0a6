// The lobby and the table. Talks to the service only through API.md; polls the view every
// second with If-None-Match so the other side's moves appear without a reload.
import {
  api, ApiError, loadSeat, saveSeat, cardFace, cardBack, cardName, cardText, cardsText,
  el, seatName, sideName, describeMove,
} from "./basra.js";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

const game = {
  id: null,
  token: null,
  view: null,
  etag: null,
  busy: false,
  timer: null,
  moves: [],
  movesVersion: -1,
  roundsSeen: null,
  focusCard: null,
};

// ---- status line -------------------------------------------------------------------------

function setStatus(message, kind = "info") {
  const status = $("status");
  status.textContent = message || "";
  status.className = `status ${kind}`;
}

function showError(err) {
  const message = err instanceof ApiError ? err.message : String(err && err.message ? err.message : err);
  setStatus(message, "error");
}

// ---- lobby -------------------------------------------------------------------------------

function playerName() {
  const name = $("name").value.trim() || "Player";
  localStorage.setItem("basra:name", name);
  return name;
}

function human(name, seed) {
  return seed ? { name, seed } : { name };
}

async function createGame(players) {
  setStatus("Creating the game\u2026");
  const { data } = await api("POST", "/games", { body: { players } });
  const mine = (data.seats || []).find((s) => s.token);
  if (mine) saveSeat(data.id, mine.seat, mine.token);
  history.pushState({}, "", `/play/${encodeURIComponent(data.id)}`);
  await openGame(data.id, data.state);
}

function showLobby() {
  document.title = "Basra";
  $("lobby").hidden = false;
  $("game").hidden = true;
  $("join").hidden = true;
  $("game-label").textContent = "";
  $("name").value = localStorage.getItem("basra:name") || "";
  listMyGames();
  listOpenGames();
}

function listMyGames() {
  const items = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (key && key.startsWith("basra:seat:")) items.push(key.slice("basra:seat:".length));
  }
  const list = $("my-games-list");
  list.replaceChildren(
    ...items.slice(-8).reverse().map((id) =>
      el("li", {}, el("a", { href: `/play/${encodeURIComponent(id)}`, text: `Game ${id}` }))),
  );
  $("my-games").hidden = items.length === 0;
}

async function listOpenGames() {
  try {
    const { data } = await api("GET", "/games?status=waiting&limit=10");
    const games = (data && (data.games || data.items || data.data)) || [];
    const list = $("open-games-list");
    list.replaceChildren(...games.filter((g) => g && g.id).map((g) => {
      const names = (g.seats || []).map((s) => s.name || (s.bot ? `${s.bot} bot` : null)).filter(Boolean);
      const label = names.length ? `${names.join(", ")} \u2014 waiting` : `Game ${g.id}`;
      return el("li", {}, el("a", { href: `/play/${encodeURIComponent(g.id)}`, text: label }));
    }));
    $("open-games").hidden = list.children.length === 0;
  } catch (err) {
    $("open-games").hidden = true; // the lobby works without the list
  }
}

// ---- opening, joining, polling -----------------------------------------------------------

async function fetchView() {
  const headers = {};
  if (game.etag) headers["If-None-Match"] = game.etag;
  const res = await api("GET", `/games/${encodeURIComponent(game.id)}`, { token: game.token, headers });
  if (res.status === 304) return null;
  const current = game.view && game.view.id === res.data.id ? game.view.version : -1;
  if (res.data.version < current) return null; // an answer that crossed one of our own moves
  game.etag = res.headers.get("ETag");
  return res.data;
}

async function openGame(id, initialView = null) {
  game.id = id;
  game.token = (loadSeat(id) || {}).token || null;
  game.etag = null;
  game.moves = [];
  game.movesVersion = -1;
  game.roundsSeen = null;
  $("lobby").hidden = true;
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
  update(view);
  schedulePoll();
}

async function joinGame(event) {
  event.preventDefault();
  const name = $("join-name").value.trim() || "Player";
  localStorage.setItem("basra:name", name);
  const seed = $("join-seed").value.trim();
  try {
    setStatus("Joining\u2026");
    const { data } = await api("POST", `/games/${encodeURIComponent(game.id)}/join`, { body: human(name, seed) });
    saveSeat(game.id, data.seat, data.token);
    game.token = data.token;
    game.etag = null;
    setStatus("You joined the game.");
    update(data.state);
  } catch (err) {
    showError(err);
  }
}

function schedulePoll(delay = POLL_MS) {
  clearTimeout(game.timer);
  if (game.view && game.view.status === "finished") return;
  game.timer = setTimeout(poll, delay);
}

async function poll() {
  if (game.busy) {
    schedulePoll();
    return;
  }
  let delay = POLL_MS;
  try {
    const view = await fetchView();
    if (view && !game.busy) update(view);
  } catch (err) {
    if (err.status === 429) delay = Math.max(POLL_MS, (err.retryAfter || 2) * 1000);
    else delay = POLL_MS * 3;
    showError(err);
  }
  schedulePoll(delay);
}

// ---- playing -----------------------------------------------------------------------------

function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function yourTurn(view = game.view) {
  return Boolean(view && view.status === "active" && view.you !== undefined && view.you !== null
    && view.turn === view.you);
}

async function playCard(code) {
  const view = game.view;
  if (game.busy || !view) return;
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
      headers: { "Idempotency-Key": newKey() },
    });
    const moves = data.moves || [];
    setStatus(moves.map((m) => describeMove(data.state, m, data.state.you)).join(". ") || "Played.");
    update(data.state, moves);
  } catch (err) {
    showError(err);
    if (err.status === 409 || err.status === 412) game.etag = null; // refresh on the next poll
  } finally {
    game.busy = false;
    schedulePoll();
  }
}

function onKey(event) {
  const target = event.target;
  if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (!/^[1-9]$/.test(event.key) || !game.view || !game.view.hand) return;
  const code = game.view.hand[Number(event.key) - 1];
  if (code) {
    event.preventDefault();
    playCard(code);
  }
}

// ---- rendering ---------------------------------------------------------------------------

function update(view, freshMoves = []) {
  if (!view) return;
  const previous = game.view;
  if (previous && previous.id === view.id && view.version < previous.version) return;
  game.view = view;
  if (freshMoves.length) {
    for (const move of freshMoves) {
      if (!game.moves.some((m) => m.n === move.n)) game.moves.push(move);
    }
  }
  announceRounds(view, previous);
  render(view);
  refreshMoveLog(view);
}

function announceRounds(view, previous) {
  const rounds = view.rounds || [];
  if (game.roundsSeen !== null && rounds.length > game.roundsSeen) {
    const last = rounds[rounds.length - 1];
    const parts = (last.points || []).map((p, side) => `${sideName(view, side)} ${p}`);
    setStatus(`Round ${last.round} scored: ${parts.join(", ")}.`, "good");
  } else if (previous && previous.turn !== view.turn && yourTurn(view) && !game.busy) {
    const move = view.last_move;
    if (move && move.seat !== view.you) setStatus(describeMove(view, move, view.you));
  }
  game.roundsSeen = rounds.length;
}

function render(view) {
  $("game").hidden = false;
  const root = $("game");
  root.dataset.status = view.status;
  root.dataset.version = String(view.version);
  root.dataset.turn = view.turn === null || view.turn === undefined ? "" : String(view.turn);
  root.dataset.you = view.you === undefined || view.you === null ? "" : String(view.you);
  root.dataset.yourTurn = String(yourTurn(view));

  const spectator = view.you === undefined || view.you === null;
  $("join").hidden = !(spectator && view.status === "waiting");
  if (!$("join").hidden && !$("join-name").value) $("join-name").value = localStorage.getItem("basra:name") || "";
  const others = (view.seats || []).filter((s) => s.name).map((s) => s.name);
  $("join-who").textContent = others.length ? `${others.join(", ")} ${others.length > 1 ? "are" : "is"} waiting for you.` : "";

  const share = $("share");
  share.hidden = !(view.status === "waiting" && !spectator);
  if (!share.hidden) $("share-link").value = `${location.origin}/play/${encodeURIComponent(view.id || game.id)}`;

  renderScoreboard(view);
  renderOpponents(view);
  renderStock(view);
  renderFloor(view);
  $("last-move").textContent = view.last_move ? describeMove(view, view.last_move, view.you) : "";
  renderTurn(view);
  renderHand(view);
  renderRounds(view);
  renderResult(view);
}

function renderScoreboard(view) {
  const target = view.target_score;
  const turnSide = (view.seats || []).find((s) => s.seat === view.turn);
  const boxes = (view.sides || []).map((side) => {
    const mine = (view.seats || []).some((s) => s.side === side.side && s.seat === view.you);
    const classes = ["side", mine ? "mine" : "", turnSide && turnSide.side === side.side ? "to-move" : ""];
    const lastRound = (view.rounds || []).slice(-1)[0];
    const lastPoints = lastRound && lastRound.points ? lastRound.points[side.side] : null;
    return el("div", { class: classes.join(" "), "data-side": side.side },
      el("div", { class: "side-name", text: sideName(view, side.side) + (mine ? " (you)" : "") }),
      el("div", { class: "side-score" }, el("span", { class: "score", text: side.score ?? 0 }),
        el("span", { class: "of", text: target ? ` / ${target}` : "" })),
      el("div", { class: "side-stats" },
        el("span", { title: "Cards captured this round", text: `Pile ${side.captured ?? 0}` }),
        el("span", { title: "Basras this round", text: `Basras ${side.basras ?? 0}` }),
        el("span", { title: "Jack basras this round", text: `Jack basras ${side.jack_basras ?? 0}` })),
      lastPoints !== null && lastPoints !== undefined
        ? el("div", { class: "side-last", text: `Last round +${lastPoints}` }) : null);
  });
  const info = el("div", { class: "match-info" },
    el("span", { text: `Round ${view.round ?? 1}` }),
    el("span", { text: target ? `Target ${target}` : "" }));
  $("scoreboard").replaceChildren(info, ...boxes);
}

function renderOpponents(view) {
  const seats = (view.seats || []).filter((s) => s.seat !== view.you);
  $("opponents").replaceChildren(...seats.map((s) => {
    const count = s.hand_size ?? 0;
    const fan = el("div", { class: "fan", "aria-hidden": "true" },
      ...Array.from({ length: Math.min(count, 8) }, () => cardBack("small")));
    const named = seatName(view, s.seat);
    const tag = s.bot && !named.toLowerCase().includes(String(s.bot).toLowerCase())
      ? el("span", { class: "tag", text: `${s.bot} bot` }) : null;
    const dealer = view.dealer === s.seat ? el("span", { class: "tag", text: "dealer" }) : null;
    return el("div", {
      class: `seat ${view.turn === s.seat ? "to-move" : ""}`,
      "data-seat": s.seat,
      "aria-label": `${seatName(view, s.seat)}: ${count} cards in hand`,
    }, el("div", { class: "seat-name" }, named, " ", tag, dealer),
    fan, el("div", { class: "seat-count", text: `${count} card${count === 1 ? "" : "s"}` }));
  }));
}

function renderStock(view) {
  const left = Array.isArray(view.stock) ? view.stock.length : view.stock ?? 0;
  $("stock").replaceChildren(
    left > 0 ? cardBack("stock-card") : el("div", { class: "card empty", "aria-hidden": "true" }),
    el("div", { class: "stock-count", text: `Stock ${left}` }),
  );
  $("stock").setAttribute("aria-label", `${left} cards left in the stock`);
}

function renderFloor(view) {
  const floor = view.floor || [];
  const floorNode = $("floor");
  if (!floor.length) {
    floorNode.replaceChildren(el("div", { class: "floor-empty", text: "The floor is empty" }));
    return;
  }
  floorNode.replaceChildren(...floor.map((code) =>
    cardFace(code, { attrs: { role: "listitem", "aria-label": cardName(code) } })));
}

function renderTurn(view) {
  let text = "";
  if (view.status === "waiting") text = "Waiting for players to join\u2026";
  else if (view.status === "finished") text = "Game over";
  else if (yourTurn(view)) text = "Your turn \u2014 pick a card (keys 1\u20134)";
  else if (view.turn !== null && view.turn !== undefined) text = `${seatName(view, view.turn)} to play\u2026`;
  const node = $("turn");
  node.textContent = text;
  node.className = `turn ${yourTurn(view) ? "yours" : ""}`;
  const you = view.you;
  $("you-label").textContent = you === undefined || you === null
    ? "You are watching this game."
    : `${seatName(view, you)}${view.dealer === you ? " \u00b7 dealer" : ""}`;
}

function legalFor(view, code) {
  return (view.legal_moves || []).find((m) => String(m.card).toUpperCase() === code.toUpperCase());
}

function previewText(code, legal) {
  if (!legal) return "";
  const took = legal.captured && legal.captured.length;
  const basra = legal.basra === "jack_basra" ? " \u2014 jack basra!" : legal.basra ? " \u2014 basra!" : "";
  return took ? `${cardText(code)} would take ${cardsText(legal.captured)}${basra}`
    : `${cardText(code)} would take nothing (it stays on the floor)`;
}

function highlight(code) {
  const view = game.view;
  const legal = code && view ? legalFor(view, code) : null;
  const targets = new Set(((legal && legal.captured) || []).map((c) => String(c).toUpperCase()));
  for (const card of $("floor").querySelectorAll(".card")) {
    card.classList.toggle("target", targets.has(card.dataset.card));
  }
  $("caption").textContent = legal ? previewText(code, legal) : "";
}

function renderHand(view) {
  const hand = view.hand || [];
  const mine = yourTurn(view);
  const active = document.activeElement;
  const focused = active && active.dataset && active.closest && active.closest("#hand") ? active.dataset.card : game.focusCard;
  const buttons = hand.map((code, index) => {
    const legal = mine ? legalFor(view, code) : null;
    const badge = legal && legal.captured && legal.captured.length
      ? el("span", { class: `badge ${legal.basra ? "basra" : ""}`, "aria-hidden": "true",
        text: legal.basra ? "\u2605" : `+${legal.captured.length}` }) : null;
    const button = cardFace(code, {
      tag: "button",
      attrs: {
        type: "button",
        "aria-label": `Play ${cardName(code)}`,
        "aria-describedby": "caption",
        "aria-disabled": mine ? null : "true",
        title: legal ? previewText(code, legal) : `${cardName(code)} (key ${index + 1})`,
        "data-index": index + 1,
      },
    });
    if (badge) button.append(badge);
    button.classList.add("playable");
    if (!mine) button.classList.add("waiting");
    button.addEventListener("click", () => playCard(code));
    button.addEventListener("mouseenter", () => highlight(code));
    button.addEventListener("mouseleave", () => highlight(null));
    button.addEventListener("focus", () => {
      game.focusCard = code;
      highlight(code);
    });
    button.addEventListener("blur", () => highlight(null));
    return button;
  });
  const handNode = $("hand");
  handNode.replaceChildren(...buttons);
  handNode.hidden = view.you === undefined || view.you === null;
  $("caption").textContent = "";
  if (focused) {
    const again = handNode.querySelector(`[data-card="${focused}"]`) || handNode.querySelector("button");
    if (again) again.focus();
  }
}

function renderRounds(view) {
  const rounds = view.rounds || [];
  const sides = view.sides || [];
  if (!rounds.length) {
    $("rounds").replaceChildren(el("p", { class: "muted", text: "No round scored yet." }));
    return;
  }
  const head = el("tr", {}, el("th", { scope: "col", text: "Round" }),
    ...sides.map((s) => el("th", { scope: "col", text: sideName(view, s.side) })));
  const rows = rounds.map((r) => el("tr", {}, el("th", { scope: "row", text: r.round }),
    ...sides.map((s) => {
      const cards = r.cards ? ` (${r.cards[s.side]} cards${r.majority === s.side ? ", majority" : ""})` : "";
      return el("td", { text: `${(r.points || [])[s.side] ?? 0}${cards}` });
    })));
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: "Total" }),
    ...sides.map((s) => el("td", { text: s.score ?? 0 })));
  $("rounds").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows, total)));
}

function renderResult(view) {
  const node = $("result");
  if (view.status !== "finished") {
    node.hidden = true;
    return;
  }
  const winner = view.winner;
  const yourSide = (view.seats || []).find((s) => s.seat === view.you);
  let headline;
  if (winner === null || winner === undefined) headline = "It's a draw.";
  else if (yourSide && yourSide.side === winner) headline = "You win!";
  else headline = `${sideName(view, winner)} wins.`;
  const scores = (view.sides || []).map((s) => `${sideName(view, s.side)} ${s.score}`).join(" \u00b7 ");
  node.replaceChildren(
    el("h2", { id: "winner", text: headline }),
    el("p", { text: scores }),
    el("p", { class: "result-links" },
      el("a", { id: "replay-link", class: "button primary", href: `/replay/${encodeURIComponent(view.id || game.id)}`, text: "Watch the replay" }),
      el("a", { class: "button", href: "/", text: "New game" })),
  );
  node.hidden = false;
  node.dataset.winner = winner === null || winner === undefined ? "" : String(winner);
}

// The move log: GET /games/{id}/moves once per new version (moves are public).
async function refreshMoveLog(view) {
  if (!view || view.status === "waiting" || game.movesVersion === view.version) {
    drawLog(view);
    return;
  }
  const version = view.version;
  try {
    const { data } = await api("GET", `/games/${encodeURIComponent(game.id)}/moves`);
    game.moves = (data && data.moves) || game.moves;
    game.movesVersion = version;
  } catch (err) {
    // keep what we have; the view itself is already on screen
  }
  drawLog(game.view);
}

function drawLog(view) {
  if (!view) return;
  const recent = game.moves.slice(-12).reverse();
  $("log").replaceChildren(...recent.map((m) =>
    el("li", { value: m.n, class: m.basra ? "basra" : "" }, `${describeMove(view, m, view.you)}`)));
}

// ---- start -------------------------------------------------------------------------------

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

function start() {
  $("bot-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seed = $("seed").value.trim();
    createGame([human(playerName(), seed), { bot: $("level").value }]).catch(showError);
  });
  $("friend-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seed = $("seed").value.trim();
    createGame([human(playerName(), seed), { open: true }]).catch(showError);
  });
  $("join-form").addEventListener("submit", joinGame);
  $("copy-link").addEventListener("click", copyLink);
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => location.reload());

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
