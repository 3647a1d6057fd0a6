// @ts-check
// Step through a finished game (GET /games/{id}/replay?step=N) and check its fairness:
// the server's own verification, plus the commitment and every shuffled deck re-derived here.
import { api, cardFace, cardName, cardsText, el, errorText, seatName, sideName, describeMove, timedOutMoves } from "./basra.js";
import { initI18n, nm, num, t, tx } from "./i18n.js";
import { ALGORITHM, deriveDeck, hexToBytes, sha256Hex } from "./shuffle.js";
import { mountAnalysis } from "./analysis.js";
import { byId as $, fieldById } from "./dom.js";

/** @typedef {import("../generated/basra").components["schemas"]} Schemas */
/** @typedef {Schemas["ReplayState"]} ReplayState */
/** @typedef {Schemas["MoveOut"]} Move */
/** @typedef {Schemas["Event"]} LogEvent */
/** @typedef {import("./analysis.js").AnalysisPanel} AnalysisPanel */
/**
 * The fairness facts of a game: as /fairness has them, and as its log states them.
 * @typedef {object} FairFacts
 * @property {string} [algorithm]
 * @property {string} [commitment]
 * @property {boolean} [custom_deck]
 * @property {string | null} [client_seed]
 * @property {string | null} [server_seed]
 */
// What the fairness check reads of the log's events (the contract leaves their data open).
/** @typedef {{seat: number, seed?: string | null, bot?: string | null}} CreatedPlayer */
/** @typedef {{commitment?: string, custom_deck?: boolean, players?: CreatedPlayer[]}} GameCreatedData */
/** @typedef {{seat: number, seed?: string | null}} SeatJoinedData */
/** @typedef {{server_seed?: string}} SeedRevealedData */
/** @typedef {boolean | {ok?: boolean, detail?: string} | null} Check one of /verify's checks */

/**
 * The replay on the page: its game, the step shown, every move, the states asked for.
 * @type {{id: string | null, step: number, total: number, moves: Move[],
 *   cache: Map<number, Promise<ReplayState>>, loading: object | null, timedOut: Set<string>,
 *   resigned: LogEvent | null, analysis: AnalysisPanel | null}}
 */
const replay = { id: null, step: 0, total: 0, moves: [], cache: new Map(), loading: null, timedOut: new Set(), resigned: null, analysis: null };

/** @param {string} message */
function setStatus(message, kind = "info") {
  $("status").textContent = message || "";
  $("status").className = `status ${kind}`;
}

/** @param {unknown} err */
function showError(err) {
  setStatus(errorText(err), "error");
}

/** @param {unknown} err anything thrown: its message, if it has one */
const messageOf = (err) => /** @type {{message?: string}} */ (Object(err)).message;

/** The game replayed, which start() reads from the address before anything is asked. */
function replayId() {
  if (replay.id === null) throw new Error("no game is replayed yet");
  return replay.id;
}

const path = (suffix = "") => `/games/${encodeURIComponent(replayId())}${suffix}`;

/**
 * @param {number} step
 * @returns {Promise<ReplayState>}
 */
async function stateAt(step) {
  let request = replay.cache.get(step);
  if (!request) {
    request = api("GET", path(`/replay?step=${step}`)).then((/** @type {{data: Schemas["Replay"]}} */ { data }) => data.state);
    replay.cache.set(step, request);
    request.catch(() => replay.cache.delete(step));
  }
  return request;
}

/** @param {number} step */
async function go(step) {
  const target = Math.max(0, Math.min(replay.total, step));
  replay.step = target;
  const ticket = {};
  replay.loading = ticket;
  try {
    const state = await stateAt(target);
    if (replay.loading !== ticket) return; // a later step was asked for meanwhile
    render(state, target);
    setStatus("");
    if (target + 1 <= replay.total) stateAt(target + 1).catch(() => {});
  } catch (err) {
    showError(err);
  }
}

/**
 * @param {ReplayState} state
 * @param {number} step
 */
function render(state, step) {
  const root = $("replay");
  root.dataset.step = String(step);
  root.dataset.total = String(replay.total);
  $("step-label").textContent = t("replay.step", { n: step, total: replay.total });
  fieldById("slider").max = String(replay.total);
  fieldById("slider").value = String(step);
  /** @type {HTMLButtonElement} */ ($("prev")).disabled = step <= 0;
  /** @type {HTMLButtonElement} */ ($("first")).disabled = step <= 0;
  /** @type {HTMLButtonElement} */ ($("next")).disabled = step >= replay.total;
  /** @type {HTMLButtonElement} */ ($("last")).disabled = step >= replay.total;

  const done = step > 0 ? replay.moves[step - 1] : null;
  $("replay-move").replaceChildren(...(done
    ? tx("replay.move", { n: done.n, round: done.round, move: el("span", {}, ...describeMove(state, done, null, { timedOut: timedOut(done) })) })
    : [t("replay.first_deal")]));
  const upcoming = replay.moves[step];
  $("next-move").replaceChildren(...(upcoming
    ? tx("replay.next", { move: el("span", {}, ...describeMove(state, upcoming, null, { timedOut: timedOut(upcoming) })) })
    : endOfMatch(state)));

  renderScoreboard(state);
  renderHands(state);
  const stockCount = Array.isArray(state.stock) ? state.stock.length : state.stock ?? 0;
  $("stock").replaceChildren(
    stockCount ? el("div", { class: "card back stock-card", "aria-hidden": "true" })
      : el("div", { class: "card empty", "aria-hidden": "true" }),
    el("div", { class: "stock-count", text: t("stock.count", { n: stockCount }) }),
  );
  const floor = state.floor || [];
  $("floor").replaceChildren(...(floor.length
    ? floor.map((c) => cardFace(c, { attrs: { role: "listitem", "aria-label": cardName(c) } }))
    : [el("div", { class: "floor-empty", text: t("floor.empty") })]));
  renderPiles(state);
  renderRounds(state);
  if (replay.analysis) replay.analysis.show(step, state);
}

/** @param {ReplayState} state */
function renderScoreboard(state) {
  const boxes = (state.sides || []).map((side) => el("div", {
    class: `side ${state.winner === side.side && state.status === "finished" ? "to-move" : ""}`,
  },
  el("div", { class: "side-name" }, el("bdi", { text: sideName(state, side.side) })),
  el("div", { class: "side-score" }, el("span", { class: "score", text: num(side.score ?? 0) }),
    el("span", { class: "of", text: state.target_score ? ` / ${num(state.target_score)}` : "" })),
  el("div", { class: "side-stats" },
    el("span", { text: t("score.pile", { n: side.captured ?? 0 }) }),
    el("span", { text: t("replay.basras", { n: side.basras ?? 0 }) }),
    el("span", { text: t("replay.jack_basras", { n: side.jack_basras ?? 0 }) }))));
  /** @type {(string | Node)[]} */
  let result = [];
  if (state.status === "finished") {
    result = state.winner === null || state.winner === undefined ? [t("result.draw")]
      : tx("replay.won", { side: nm(sideName(state, state.winner)) });
  }
  $("scoreboard").replaceChildren(el("div", { class: "match-info" },
    el("span", { text: t("score.round", { n: state.round ?? 1 }) }), el("span", {}, ...result)), ...boxes);
}

/** @param {ReplayState} state */
function renderHands(state) {
  const hands = state.hands || [];
  $("hands").replaceChildren(...(state.seats || []).map((seat) => {
    const hand = hands[seat.seat] || [];
    return el("div", {
      class: `replay-seat ${state.turn === seat.seat ? "to-move" : ""}`,
      "data-seat": seat.seat,
      "aria-label": t("replay.hand_label", { name: nm(seatName(state, seat.seat)), cards: hand.length ? hand.map(cardName).join(t("list.comma")) : t("replay.empty") }),
    },
    el("div", { class: "seat-name" }, el("bdi", { text: seatName(state, seat.seat) }),
      state.turn === seat.seat ? el("span", { class: "tag", text: t("seat.to_play_short") }) : null,
      state.dealer === seat.seat ? el("span", { class: "tag", text: t("seat.dealer") }) : null),
    el("div", { class: "cards" }, ...hand.map((c) => cardFace(c))));
  }));
}

/** @param {ReplayState} state */
function renderPiles(state) {
  const piles = state.piles || [];
  $("piles").replaceChildren(...(state.sides || []).map((side) => {
    const pile = piles[side.side] || [];
    return el("div", { class: "pile", "data-side": side.side },
      el("div", { class: "seat-name" }, ...tx("replay.pile", { side: nm(sideName(state, side.side)), count: pile.length })),
      el("div", { class: "pile-cards", title: cardsText(pile) }, ...pile.map((c) => cardFace(c))));
  }));
}

/** @param {ReplayState} state */
function renderRounds(state) {
  const rounds = state.rounds || [];
  const sides = state.sides || [];
  if (!rounds.length) {
    $("rounds").replaceChildren(el("p", { class: "muted", text: t("replay.no_round") }));
    return;
  }
  $("rounds").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, el("th", { text: t("rounds.round") }), ...sides.map((s) => el("th", {}, el("bdi", { text: sideName(state, s.side) }))))),
    el("tbody", {}, ...rounds.map((r) => el("tr", {}, el("th", { scope: "row", text: num(r.round) }),
      ...sides.map((s) => el("td", { text: `${num((r.points || [])[s.side] ?? 0)}${r.cards ? ` (${t("round.cards", { count: r.cards[s.side] })})` : ""}` })))))));
}

// ---- fairness ----------------------------------------------------------------------------

const mark = (/** @type {boolean} */ ok) => el("span", { class: ok ? "ok" : "bad", text: ok ? "\u2713" : "\u2717" });

/**
 * @param {unknown} value
 * @returns {value is string}
 */
function isCardCode(value) {
  return typeof value === "string" && /^(A|[2-9]|10|J|Q|K)[SHDC]$/i.test(value);
}

/**
 * @param {unknown} data an event's data, or a part of it
 * @returns {string[] | null}
 */
function findDeck(data, depth = 0) {
  if (!data || typeof data !== "object" || depth > 3) return null;
  const fields = /** @type {Record<string, unknown>} */ (data); // JSON
  if (Array.isArray(fields.deck) && fields.deck.length === 52 && fields.deck.every(isCardCode)) return fields.deck;
  for (const value of Object.values(fields)) {
    if (Array.isArray(value) && value.length === 52 && value.every(isCardCode)) return value;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const inner = findDeck(value, depth + 1);
      if (inner) return inner;
    }
  }
  return null;
}

/** @param {Record<string, unknown> | null | undefined} data */
function isFixedDeck(data) {
  if (!data) return false;
  if (data.fixed === true || data.custom === true || data.custom_deck === true || data.shuffled === false) return true;
  const source = String(data.source || data.origin || data.deck_source || "").toLowerCase();
  return ["custom", "fixed", "creator", "given"].includes(source);
}

async function allEvents() {
  /** @type {LogEvent[]} */
  const events = [];
  let after = 0;
  for (let page = 0; page < 100; page += 1) {
    /** @type {{data: Schemas["Events"]}} */
    const { data } = await api("GET", path(`/events?after=${after}`));
    const batch = (data && data.events) || [];
    const fresh = batch.filter((e) => typeof e.seq !== "number" || e.seq > after);
    events.push(...fresh);
    const last = fresh.length ? fresh[fresh.length - 1].seq : after;
    if (!fresh.length || typeof last !== "number" || last <= after) break;
    after = last;
  }
  return events;
}

// The fairness facts as the log states them, not as /fairness (the game's row) does: the
// client seed rebuilt from the seeds in GameCreated and SeatJoined (seat order, "" for a bot
// or no seed, joined with "|"), the commitment GameCreated published, the server seed
// SeedRevealed revealed, and whether the creator fixed a deck (GameCreated.custom_deck).
/**
 * @param {LogEvent[]} events
 * @returns {FairFacts}
 */
function loggedFairness(events) {
  /** @type {Map<number, string>} */
  const seeds = new Map();
  /** @type {Set<number>} */
  const bots = new Set();
  /** @type {FairFacts} */
  const logged = {};
  for (const { type, data } of events) {
    if (!data || typeof data !== "object") continue;
    if (type === "GameCreated") {
      const created = /** @type {GameCreatedData} */ (data);
      logged.commitment = created.commitment;
      logged.custom_deck = created.custom_deck === true;
      for (const player of created.players || []) {
        seeds.set(player.seat, player.seed ?? "");
        if (player.bot) bots.add(player.seat);
      }
    } else if (type === "SeatJoined") {
      const joined = /** @type {SeatJoinedData} */ (data);
      seeds.set(joined.seat, joined.seed ?? "");
    } else if (type === "SeedRevealed") {
      logged.server_seed = /** @type {SeedRevealedData} */ (data).server_seed;
    }
  }
  if (seeds.size) {
    logged.client_seed = [...seeds.keys()].sort((a, b) => a - b)
      .map((seat) => (bots.has(seat) ? "" : seeds.get(seat) ?? "")).join("|");
  }
  return logged;
}

/**
 * @param {FairFacts} fair
 * @param {LogEvent[]} events
 */
async function checkDecks(fair, events) {
  const list = $("decks");
  const summary = $("decks-summary");
  if (!fair.server_seed) {
    summary.textContent = t("fair.not_yet_over");
    return;
  }
  /** @type {{round: number, deck: string[], fixed: boolean, type: string}[]} */
  const dealt = [];
  events.forEach((event) => {
    const deck = findDeck(event.data);
    if (!deck) return;
    const round = Number(event.data.round ?? event.data.r ?? dealt.length + 1);
    dealt.push({ round, deck: deck.map((c) => String(c).toUpperCase()), fixed: isFixedDeck(event.data), type: event.type });
  });
  if (!dealt.length) {
    summary.textContent = t("fair.no_deck");
    return;
  }
  let checked = 0;
  let matched = 0;
  /** @type {HTMLElement[]} */
  const items = [];
  for (const { round, deck, fixed } of dealt) {
    if (fixed && round === 1 && fair.custom_deck) {
      items.push(el("li", { "data-round": round }, t("fair.round_fixed", { n: round })));
      continue;
    }
    if (fixed) {  // only round 1 of a game created with a deck may be dealt unshuffled
      checked += 1;
      items.push(el("li", { "data-round": round, "data-ok": "false" }, mark(false),
        ` ${t("fair.round_bad_fixed", { n: round })}`));
      continue;
    }
    const derived = await deriveDeck(fair.server_seed, fair.client_seed ?? "", round);
    const ok = derived.length === deck.length && derived.every((c, i) => c === deck[i]);
    checked += 1;
    if (ok) matched += 1;
    items.push(el("li", { "data-round": round, "data-ok": String(ok) }, mark(ok),
      ` ${t(ok ? "fair.round_match" : "fair.round_mismatch", { n: round })}`));
  }
  list.replaceChildren(...items);
  const allOk = checked > 0 && matched === checked;
  summary.replaceChildren(el("span", { class: allOk ? "ok" : checked ? "bad" : "" ,
    text: checked ? t(allOk ? "fair.decks_match" : "fair.decks_mismatch", { n: matched, count: checked }) : t("fair.no_shuffled") }));
  summary.dataset.ok = String(allOk);
}

async function checkFairness() {
  /** @type {{data: Schemas["Fairness"]}} */
  const { data: served } = await api("GET", path("/fairness"));
  const events = await allEvents();
  /** @type {FairFacts} */
  const fair = { ...served, ...loggedFairness(events) };
  for (const key of timedOutMoves(events)) replay.timedOut.add(key);
  const resigned = events.find((e) => e.type === "Resigned" || e.type === "Forfeited");
  if (resigned && resigned.data) replay.resigned = resigned;
  go(replay.step);
  /** @type {[string, string | undefined][]} */
  const rows = [
    [t("fair.algorithm"), fair.algorithm], [t("fair.commitment"), fair.commitment],
    [t("fair.client_seed"), clientSeedText(fair.client_seed)],
    [t("fair.server_seed"), fair.server_seed || t("fair.hidden")],
  ];
  if ("custom_deck" in fair) {
    rows.push([t("fair.deck"), fair.custom_deck ? t("fair.deck_fixed") : t("fair.deck_shuffled")]);
  }
  $("fairness-data").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v ?? "" })]));

  const commitment = $("commitment-check");
  if (fair.algorithm && fair.algorithm !== ALGORITHM) {
    commitment.textContent = t("fair.unknown_algorithm", { name: fair.algorithm });
  } else if (!fair.server_seed) {
    commitment.textContent = t("fair.not_yet");
  } else {
    try {
      const digest = await sha256Hex(hexToBytes(fair.server_seed));
      const ok = digest === String(fair.commitment).toLowerCase();
      commitment.replaceChildren(mark(ok), ` ${t(ok ? "fair.commit_match" : "fair.commit_mismatch", { digest: `${digest.slice(0, 16)}\u2026` })}`);
      commitment.dataset.ok = String(ok);
    } catch (err) {
      commitment.textContent = t("fair.cannot", { why: messageOf(err) });
    }
  }
  try {
    await checkDecks(fair, events);
  } catch (err) {
    $("decks-summary").textContent = t("fair.cannot", { why: messageOf(err) });
  }
}

async function checkServer() {
  /** @type {{data: Schemas["Verify"]}} */
  const { data } = await api("GET", path("/verify"));
  const ok = Boolean(data && data.ok);
  $("verify-ok").replaceChildren(mark(ok), ` ${t(ok ? "fair.ok" : "fair.failed")}`);
  $("verify-ok").dataset.ok = String(ok);
  // Each check is a verdict, or a verdict with its detail.
  const checks = /** @type {Record<string, Check>} */ ((data && data.checks) || {});
  $("verify-checks").replaceChildren(...Object.entries(checks).map(([name, value]) => {
    const passed = typeof value === "object" && value !== null ? Boolean(value.ok) : Boolean(value);
    const detail = typeof value === "object" && value !== null && value.detail ? ` (${value.detail})` : "";
    const label = t(`fair.check.${name}`) === `fair.check.${name}` ? name.replaceAll("_", " ") : t(`fair.check.${name}`);
    return el("li", { "data-check": name }, mark(passed), ` ${label}${detail}`);
  }));
}

// ---- start -------------------------------------------------------------------------------

/** @param {KeyboardEvent} event */
function onKey(event) {
  const target = /** @type {HTMLElement | null} */ (event.target);
  if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) && target.id !== "slider") return;
  if (target && target.id === "slider" && event.key.startsWith("Arrow")) return; // the slider steps itself
  /** @type {Record<string, number>} */
  const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const delta = moves[event.key];
  go(Number.isFinite(delta) ? replay.step + delta : delta < 0 ? 0 : replay.total);
}

// The seeds the players gave, seat by seat ("|" between seats): said in words when nobody gave one.
/**
 * @param {string | null | undefined} seed
 * @returns {string}
 */
function clientSeedText(seed) {
  if (seed === undefined || seed === null) return "";
  if (!String(seed).replaceAll("|", "")) return t("fair.no_client_seed");
  return seed;
}

/** @param {Move} move */
function timedOut(move) {
  return replay.timedOut.has(`${move.round}:${move.seat}:${String(move.card).toUpperCase()}`);
}

// The end of the replay: the result, and who resigned or forfeited if the match ended so.
/** @param {ReplayState} state */
function endOfMatch(state) {
  /** @type {(string | Node)[]} */
  const parts = [t("replay.end")];
  const side = replay.resigned ? replay.resigned.data.side : state.resigned;
  if (typeof side === "number") {
    parts.push(" ", ...tx(replay.resigned && replay.resigned.type === "Forfeited" ? "replay.forfeited" : "result.resigned",
      { side: nm(sideName(state, side)) }));
  }
  return parts;
}

async function start() {
  await initI18n();
  const match = location.pathname.match(/^\/replay\/([^/]+)\/?$/);
  if (!match) {
    setStatus(t("replay.no_id"), "error");
    return;
  }
  const id = decodeURIComponent(match[1]);
  replay.id = id;
  document.title = t("replay.title");
  /** @type {HTMLAnchorElement} */ ($("back-to-game")).href = `/play/${encodeURIComponent(id)}`;
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(replay.step - 1));
  $("next").addEventListener("click", () => go(replay.step + 1));
  $("last").addEventListener("click", () => go(replay.total));
  $("slider").addEventListener("input", (event) => go(Number(/** @type {HTMLInputElement} */ (event.target).value)));
  document.addEventListener("keydown", onKey);

  checkServer().catch((err) => { $("verify-ok").textContent = t("fair.cannot", { why: errorText(err) }); });
  checkFairness().catch((err) => { $("commitment-check").textContent = t("fair.cannot", { why: errorText(err) }); });
  try {
    /** @type {{data: Schemas["Moves"]}} */
    const { data } = await api("GET", path("/moves"));
    replay.moves = (data && data.moves) || [];
    replay.total = replay.moves.length;
    replay.analysis = mountAnalysis($("analysis"), id, replay.total);
    await go(0);
    /** @type {{data: Schemas["Replay"]}} */
    const { data: first } = await api("GET", path("/replay?step=0"));
    const names = (first.state.seats || []).map((s) => seatName(first.state, s.seat));
    const label = names.flatMap((n, i) => (i ? [t("side.joiner"), el("bdi", { text: n })] : [el("bdi", { text: n })]));
    $("game-label").replaceChildren(...label);
    $("replay-title").replaceChildren(...tx("replay.heading", { names: el("span", {}, ...label.map((n) => (typeof n === "string" ? n : n.cloneNode(true)))) }));
  } catch (err) {
    showError(err);
  }
}

start();
