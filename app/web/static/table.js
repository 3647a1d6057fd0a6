// @ts-check
// Drawing the table from a view: seats around the floor (partners across), the scoreboard per
// side, the hand, the rounds table and the result. No requests are made here.
import { cardBack, cardFace, cardName, cardText, cardsText, el, seatName, describeMove } from "./basra.js";
import { isolate, nm, num, t, tx } from "./i18n.js";
import { analyseButton } from "./analysis.js";
import { byId as $, required } from "./dom.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("./game_state.js").Move} Move */
/** @typedef {import("./game_state.js").Card} Card */
/** @typedef {import("../generated/basra").components["schemas"]["Round"]} Round */
/** @typedef {import("../generated/basra").components["schemas"]["LegalMove"]} LegalMove */
/** @typedef {View & {you: number}} SeatedView a view of a seat's, which `you` names */
/** @typedef {"basras" | "jack_basras"} BasraCount */

/**
 * What the table is drawn with besides the view: the moves on screen, the card being played or
 * just played during a play-back, and what the hand's buttons do.
 * @typedef {object} TableContext
 * @property {Move[]} moves
 * @property {Move | null} playing
 * @property {Move | null} justPlayed
 * @property {boolean} animating
 * @property {string | null} deadline
 * @property {Card | null} focusCard
 * @property {Card | null} selected
 * @property {boolean} touch
 * @property {(code: Card) => void} onPlay
 * @property {(code: Card) => void} onSelect
 * @property {(code: Card) => void} onFocus
 */

/**
 * @param {View} view
 * @returns {view is SeatedView}
 */
export function isSeated(view) {
  return view && view.you !== undefined && view.you !== null;
}

/** @param {View | null | undefined} view */
export function yourTurn(view) {
  return Boolean(view && view.status === "active" && isSeated(view) && view.turn === view.you);
}

/**
 * @param {View} view
 * @param {number} seat
 */
function seatOf(view, seat) {
  return (view.seats || []).find((s) => s.seat === seat) || { seat, side: seat % 2 };
}

/**
 * @param {View} view
 * @param {number} seat
 * @returns {number}
 */
export function sideOfSeat(view, seat) {
  const entry = seatOf(view, seat);
  return entry.side ?? seat % 2;
}

/** @param {View} view */
function teams(view) {
  return (view.seats || []).length === 4;
}

const teamName = (/** @type {number} */ side) => t(side === 0 ? "team.a" : "team.b");

// The name a move or a turn is told with: in a four-player game "Alice (your partner)".
/**
 * @param {View} view
 * @param {number} seat
 * @returns {string | {partner: string}}
 */
function who(view, seat) {
  const name = seatName(view, seat);
  if (teams(view) && isSeated(view) && seat !== view.you && sideOfSeat(view, seat) === sideOfSeat(view, view.you)) {
    return { partner: name };
  }
  return name;
}

/**
 * @param {View} view
 * @param {number} seat
 */
function whoParam(view, seat) {
  const named = who(view, seat);
  if (typeof named === "string") return nm(named);
  return el("span", {}, ...tx("seat.your_partner", { name: nm(named.partner) }));
}

/**
 * @param {View} view
 * @param {number} side
 * @returns {(string | Node)[][]}
 */
function sideNames(view, side) {
  return (view.seats || []).filter((s) => s.side === side).map((s) =>
    (isSeated(view) && s.seat === view.you ? tx("seat.you_named", { name: nm(seatName(view, s.seat)) })
      : [el("bdi", { text: seatName(view, s.seat) })]));
}

// A side's label as nodes: "Lina (you)", or in teams "Team A: Lina (you) & Omar".
/**
 * @param {View} view
 * @param {number} side
 * @returns {(string | Node)[]}
 */
export function sideLabelNodes(view, side) {
  const names = sideNames(view, side);
  /** @type {(string | Node)[]} */
  const joined = [];
  names.forEach((parts, index) => {
    if (index) joined.push(t("side.joiner"));
    joined.push(...parts);
  });
  if (!joined.length) joined.push(t("side.number", { n: side + 1 }));
  return teams(view) ? [teamName(side), t("side.colon"), ...joined] : joined;
}

/**
 * @param {View} view
 * @param {number} side
 */
export function sideLabel(view, side) {
  return sideLabelNodes(view, side).map((p) => (p instanceof Node ? p.textContent : p)).join("");
}

// A move's line: with the partner marked, and "time ran out" for a card the server played.
/**
 * @param {View} view
 * @param {Move} move
 */
export function moveNodes(view, move, timedOut = false) {
  return describeMove(view, move, isSeated(view) ? view.you : null, { who: whoParam(view, move.seat), timedOut });
}

// Where each seat sits: you (or seat 0 for a spectator) at the bottom, partners across.
/**
 * @param {View} view
 * @param {number} seat
 */
function place(view, seat) {
  const count = (view.seats || []).length || 2;
  const base = isSeated(view) ? view.you : 0;
  const rel = (seat - base + count) % count;
  if (count === 2) return rel === 0 ? "bottom" : "top";
  return ["bottom", "left", "top", "right"][rel];
}

// ---- match totals ------------------------------------------------------------------------

/**
 * @param {View} view
 * @param {number} round
 * @param {number} side
 * @param {BasraCount} kind
 * @param {Move[]} moves
 * @returns {number}
 */
export function roundBasras(view, round, side, kind, moves) {
  const entry = (view.rounds || []).find((r) => r.round === round);
  if (entry && Array.isArray(entry[kind])) return entry[kind][side] ?? 0;
  const want = kind === "jack_basras" ? "jack_basra" : "basra";
  return moves.filter((m) => m.round === round && m.basra === want && sideOfSeat(view, m.seat) === side).length;
}

/**
 * @param {View} view
 * @param {number} side
 * @param {BasraCount} kind
 * @param {Move[]} [moves]
 */
export function matchBasras(view, side, kind, moves = []) {
  let total = 0;
  for (const r of view.rounds || []) total += roundBasras(view, r.round, side, kind, moves);
  const scored = (view.rounds || []).some((r) => r.round === view.round);
  if (!scored) total += (view.sides || []).find((s) => s.side === side)?.[kind] ?? 0;
  return total;
}

// ---- scoreboard ----------------------------------------------------------------------------

/**
 * @param {View} view
 * @param {Move[]} moves
 */
export function renderScoreboard(view, moves) {
  const target = view.target_score;
  const turnSide = view.turn === null || view.turn === undefined ? null : sideOfSeat(view, view.turn);
  const boxes = (view.sides || []).map((side) => {
    const mine = isSeated(view) && sideOfSeat(view, view.you) === side.side;
    const classes = ["side", mine ? "mine" : "", view.status === "active" && turnSide === side.side ? "to-move" : ""];
    const basras = matchBasras(view, side.side, "basras", moves);
    const jacks = matchBasras(view, side.side, "jack_basras", moves);
    return el("div", { class: classes.join(" "), "data-side": side.side },
      el("div", { class: "side-name" }, ...sideLabelNodes(view, side.side)),
      el("div", { class: "side-score" }, el("span", { class: "score", text: num(side.score ?? 0) }),
        el("span", { class: "of", text: target ? ` / ${num(target)}` : "" })),
      el("div", { class: "side-stats" },
        el("span", { class: "pile-count", title: t("score.pile_title"), text: t("score.pile", { n: side.captured ?? 0 }) }),
        el("span", { class: "basras", title: t("score.basras_title"),
          text: t("score.basras", { n: side.basras ?? 0, match: basras }) }),
        el("span", { class: "jack-basras", title: t("score.jack_basras_title"),
          text: t("score.jack_basras", { n: side.jack_basras ?? 0, match: jacks }) })));
  });
  const info = el("div", { class: "match-info" },
    el("span", { text: view.status === "waiting" ? t("score.not_dealt") : t("score.round", { n: view.round ?? 1 }) }),
    view.custom_deck ? el("span", { class: "custom-deck", text: t("score.custom_deck") }) : null,
    el("span", { text: target ? t("score.target", { n: target }) : "" }));
  $("scoreboard").replaceChildren(info, ...boxes);
}

// ---- seats around the table --------------------------------------------------------------------

/**
 * @param {View} view
 * @param {Move[]} moves
 */
function lastPlays(view, moves) {
  /** @type {Map<number, Move>} */
  const plays = new Map();
  for (const move of moves) if (move.round === view.round) plays.set(move.seat, move);
  return plays;
}

/**
 * @param {View} view
 * @param {TableContext} ctx
 */
export function renderSeats(view, ctx) {
  const plays = lastPlays(view, ctx.moves);
  const seats = (view.seats || []).filter((s) => !(isSeated(view) && s.seat === view.you));
  $("felt").dataset.players = String((view.seats || []).length);
  $("felt").classList.toggle("spectating", !isSeated(view));
  $("opponents").replaceChildren(...seats.map((s) => {
    const count = s.hand_size ?? 0;
    const toMove = view.status === "active" && view.turn === s.seat;
    const named = seatName(view, s.seat);
    const side = sideOfSeat(view, s.seat);
    const partner = teams(view) && isSeated(view) && side === sideOfSeat(view, view.you);
    const tags = [

      partner ? t("seat.partner") : null,
      teams(view) ? teamName(side) : null,
      view.dealer === s.seat ? t("seat.dealer") : null,
    ].filter(Boolean);
    const play = plays.get(s.seat);
    const now = ctx.playing && ctx.playing.seat === s.seat ? ctx.playing : null;
    const shown = now || play;
    const played = shown ? el("div", { class: `played ${now ? "now" : ""}`, "aria-hidden": "true" },
      el("span", { class: "played-label", text: now ? t("seat.plays") : t("seat.played") }),
      cardFace(shown.card, { attrs: { class: "small-face" } })) : null;
    const clock = toMove && ctx.deadline ? el("span", { class: "seat-clock", "data-deadline": ctx.deadline }) : null;
    const label = [
      t("seat.label", { name: nm(named), count }),
      teams(view) ? teamName(side) : null,
      toMove ? t("seat.to_play_short") : null,
      play ? t("seat.last_played", { card: cardName(play.card) }) : null,
    ].filter(Boolean).join(t("list.comma"));
    return el("div", {
      class: `seat place-${place(view, s.seat)} side-${side} ${toMove ? "to-move" : ""} ${partner ? "partner" : ""}`,
      "data-seat": s.seat,
      "aria-label": label,
    },
    el("div", { class: "seat-name" }, el("bdi", { class: "name", text: named }),
      ...tags.map((tag) => el("span", { class: "tag", text: tag }))),
    el("div", { class: "seat-body" },
      el("div", { class: "fan", "aria-hidden": "true" },
        ...Array.from({ length: Math.min(count, 4) }, () => cardBack("small"))),
      played),
    el("div", { class: "seat-count" },
      !s.name && !s.bot && view.status === "waiting" ? t("seat.waiting") : t("seat.cards", { count }),
      toMove ? el("span", { class: "to-play", text: ` \u25b6 ${t("seat.to_play_short")}` }) : null, clock));
  }));
}

// ---- middle of the table -----------------------------------------------------------------------

/** @param {View} view */
export function renderStock(view) {
  const left = Array.isArray(view.stock) ? view.stock.length : view.stock ?? 0;
  $("stock").replaceChildren(
    left > 0 ? cardBack("stock-card") : el("div", { class: "card empty", "aria-hidden": "true" }),
    el("div", { class: "stock-count", "data-left": left, text: t("stock.count", { n: left }) }),
  );
  $("stock").setAttribute("aria-label", t("stock.label", { count: left }));
}

/**
 * @param {View} view
 * @param {TableContext} ctx
 */
export function renderFloor(view, ctx) {
  const floor = view.floor || [];
  const taking = new Set(ctx.playing ? ctx.playing.captured : []);
  const arrived = ctx.justPlayed && !ctx.justPlayed.captured.length ? ctx.justPlayed.card : null;
  if (!floor.length) {
    $("floor").replaceChildren(el("div", { class: "floor-empty", text: t("floor.empty") }));
    return;
  }
  $("floor").replaceChildren(...floor.map((code) => {
    const classes = [taking.has(code) ? "taking" : "", code === arrived ? "arrived" : ""].join(" ").trim();
    return cardFace(code, { attrs: { role: "listitem", "aria-label": cardName(code), class: classes } });
  }));
}

/**
 * @param {View} view
 * @param {TableContext} ctx
 */
export function renderTurn(view, ctx) {
  const node = $("turn");
  /** @type {(string | Node)[]} */
  let parts = [];
  if (view.status === "waiting") parts = [t("turn.waiting")];
  else if (view.status === "finished") parts = [t("turn.over")];
  else if (view.status === "cancelled") parts = [t("turn.cancelled")];
  else if (yourTurn(view) && !ctx.animating) parts = [t(ctx.touch ? "turn.yours_touch" : "turn.yours")];
  else if (view.turn !== null && view.turn !== undefined) parts = tx("turn.other", { who: whoParam(view, view.turn) });
  node.replaceChildren(...parts);
  node.className = `turn ${yourTurn(view) && !ctx.animating ? "yours" : ""}`;
  /** @type {(string | Node)[]} */
  const bits = isSeated(view) ? [el("bdi", { text: seatName(view, view.you) })] : [t("turn.watching")];
  if (isSeated(view) && teams(view)) bits.push(" \u00b7 ", teamName(sideOfSeat(view, view.you)));
  if (isSeated(view) && view.dealer === view.you) bits.push(" \u00b7 ", t("seat.dealer"));
  $("you-label").replaceChildren(...bits);
}

/**
 * @param {View} view
 * @param {string} code
 */
function legalFor(view, code) {
  return (view.legal_moves || []).find((m) => String(m.card).toUpperCase() === code.toUpperCase());
}

/**
 * @param {string} code
 * @param {LegalMove | null | undefined} legal
 */
export function previewText(code, legal) {
  if (!legal) return "";
  const took = legal.captured && legal.captured.length;
  const basra = legal.basra === "jack_basra" ? ` \u2014 ${t("move.jack_basra")}` : legal.basra ? ` \u2014 ${t("move.basra")}` : "";
  return took ? `${t("preview.takes", { card: cardText(code), cards: cardsText(legal.captured) })}${basra}`
    : t("preview.nothing", { card: cardText(code) });
}

/**
 * @param {View | null} view
 * @param {string | null} code
 */
export function highlight(view, code) {
  const legal = code && view ? legalFor(view, code) : null;
  const targets = new Set(((legal && legal.captured) || []).map((c) => String(c).toUpperCase()));
  for (const card of /** @type {NodeListOf<HTMLElement>} */ ($("floor").querySelectorAll(".card"))) card.classList.toggle("target", targets.has(card.dataset.card ?? ""));
  $("caption").textContent = legal && code ? previewText(code, legal) : "";
}

// The hand. On a touch screen (no hover) a tap selects a card and shows what it would take; a
// second tap or the Play button plays it. With a mouse or the keyboard a click plays at once
// (hovering and focusing already show the preview).
/**
 * @param {View} view
 * @param {TableContext} ctx
 */
export function renderHand(view, ctx) {
  const hand = view.hand || [];
  const mine = yourTurn(view) && !ctx.animating;
  const selected = mine && ctx.selected !== null && hand.includes(ctx.selected) ? ctx.selected : null;
  // Keep the keyboard where it was: on the same card (or the first) if the hand had focus.
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const handHadFocus = Boolean(active && active.closest && active.closest("#hand"));
  const idle = !active || active === document.body;
  const focused = active && handHadFocus ? active.dataset.card : idle ? ctx.focusCard : null;
  const buttons = hand.map((code, index) => {
    const legal = mine ? legalFor(view, code) : null;
    const badge = legal && legal.captured && legal.captured.length
      ? el("span", { class: `badge ${legal.basra ? "basra" : ""}`, "aria-hidden": "true",
        text: legal.basra ? "\u2605" : `+${num(legal.captured.length)}` }) : null;
    const button = cardFace(code, {
      tag: "button",
      attrs: {
        type: "button",
        "aria-label": t("hand.play", { card: cardName(code) }),
        "aria-describedby": "caption",
        "aria-disabled": mine ? null : "true",
        "aria-pressed": ctx.touch && mine ? String(code === selected) : null,
        title: legal ? previewText(code, legal) : t("hand.key", { card: cardName(code), n: index + 1 }),
        "data-index": index + 1,
      },
    });
    if (badge) button.append(badge);
    button.classList.add("playable");
    if (code === selected) button.classList.add("selected");
    if (!mine) button.classList.add("waiting");
    button.addEventListener("click", () => (ctx.touch ? ctx.onSelect(code) : ctx.onPlay(code)));
    button.addEventListener("mouseenter", () => { if (!ctx.touch) highlight(view, code); });
    button.addEventListener("mouseleave", () => { if (!ctx.touch) highlight(view, selected); });
    button.addEventListener("focus", () => {
      ctx.onFocus(code);
      if (!ctx.touch) highlight(view, code);
    });
    button.addEventListener("blur", () => { if (!ctx.touch) highlight(view, null); });
    return button;
  });
  const handNode = $("hand");
  handNode.replaceChildren(...buttons);
  handNode.hidden = !isSeated(view);
  required($("felt"), ".me").classList.toggle("to-move", view.status === "active" && isSeated(view) && view.turn === view.you);
  highlight(view, selected);
  const play = $("play-selected");
  play.hidden = !selected;
  play.textContent = selected ? t("hand.play_button", { card: cardText(selected) }) : "";
  if (focused && !ctx.touch) {
    const again = /** @type {HTMLElement | null} */ (handNode.querySelector(`[data-card="${focused}"]`)) || handNode.querySelector("button");
    if (again) again.focus({ preventScroll: true });
  }
}

// ---- below the table ---------------------------------------------------------------------------

// The last capture of a round: its seat's side took the cards left on the floor.
/**
 * @param {Move[]} moves
 * @param {number} round
 */
export function lastCapture(moves, round) {
  const captures = moves.filter((m) => m.round === round && m.captured && m.captured.length);
  return captures.length ? captures[captures.length - 1] : null;
}

/**
 * @param {View} view
 * @param {Round} r
 * @param {number} side
 * @param {Move[]} moves
 */
export function roundParts(view, r, side, moves) {
  /** @type {string[]} */
  const parts = [];
  if (r.cards) parts.push(t(r.majority === side ? "round.cards_most" : "round.cards", { count: r.cards[side] }));
  const basras = roundBasras(view, r.round, side, "basras", moves);
  const jacks = roundBasras(view, r.round, side, "jack_basras", moves);
  if (basras) parts.push(t("round.basras", { count: basras }));
  if (jacks) parts.push(t("round.jack_basras", { count: jacks }));
  return parts;
}

/**
 * @param {View} view
 * @param {Move[]} moves
 */
export function renderRounds(view, moves) {
  const rounds = view.rounds || [];
  const sides = view.sides || [];
  if (!rounds.length) {
    $("rounds").replaceChildren(el("p", { class: "muted", text: t("rounds.none") }));
    return;
  }
  const head = el("tr", {}, el("th", { scope: "col", text: t("rounds.round") }),
    ...sides.map((s) => el("th", { scope: "col" }, ...sideLabelNodes(view, s.side))));
  const rows = rounds.map((r) => el("tr", { "data-round": r.round }, el("th", { scope: "row", text: num(r.round) }),
    ...sides.map((s) => {
      const parts = roundParts(view, r, s.side, moves);
      return el("td", {}, el("b", { text: num((r.points || [])[s.side] ?? 0) }),
        el("span", { class: "why", text: parts.length ? ` \u2014 ${parts.join(t("list.comma"))}` : "" }));
    })));
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: t("rounds.total") }),
    ...sides.map((s) => el("td", { text: num(s.score ?? 0) })));
  $("rounds").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows, total)));
}

/** @param {View} view */
export function resultHeadline(view) {
  const winner = view.winner;
  const yourSide = isSeated(view) ? sideOfSeat(view, view.you) : null;
  /** @type {(string | Node)[]} */
  const parts = [];
  if (view.status === "cancelled") parts.push(t("result.cancelled"));
  else if (winner === null || winner === undefined) parts.push(t("result.draw"));
  else if (yourSide === winner) parts.push(t(teams(view) ? "result.your_team_wins" : "result.you_win"));
  else parts.push(...tx(teams(view) ? "result.team_wins" : "result.wins", { side: el("span", {}, ...sideLabelNodes(view, winner)) }));
  if (typeof view.resigned === "number") {
    parts.push(" ");
    if (view.resigned === yourSide) parts.push(t("result.you_resigned"));
    else parts.push(...tx("result.resigned", { side: el("span", {}, ...sideLabelNodes(view, view.resigned)) }));
  }
  return parts;
}

/**
 * @param {View} view
 * @param {string} gameId
 * @param {Node[]} [extra]
 */
export function renderResult(view, gameId, extra = []) {
  const node = $("result");
  if (view.status !== "finished" && view.status !== "cancelled") {
    node.hidden = true;
    return;
  }
  const winner = view.winner;
  /** @type {(string | Node)[]} */
  const scores = [];
  (view.sides || []).forEach((s, index) => {
    if (index) scores.push(" \u00b7 ");
    scores.push(...sideLabelNodes(view, s.side), " ", num(s.score ?? 0));
  });
  node.replaceChildren(
    el("h2", { id: "winner" }, ...resultHeadline(view)),
    el("p", {}, ...scores),
    ...extra,
    el("p", { class: "result-links" },
      el("a", { id: "replay-link", class: "button primary", href: `/replay/${encodeURIComponent(view.id || gameId)}`, text: t("result.replay") }),
      view.status === "finished" ? analyseButton(view.id || gameId) : null,
      el("a", { class: "button", href: "/", text: t("result.new_game") })),
  );
  node.hidden = false;
  node.dataset.winner = winner === null || winner === undefined ? "" : String(winner);
}

// The newest moves first, each with its own number (never cut: the number is text, not a list
// marker); a resignation or forfeit ends the list.
/**
 * @param {View} view
 * @param {Move[]} moves
 * @param {Set<string>} [timedOut]
 */
export function renderLog(view, moves, timedOut = new Set()) {
  const recent = moves.slice(-12).reverse();
  const items = recent.map((m) => el("li", { value: m.n, "data-n": m.n, class: `${m.basra ? "basra" : ""} ${timedOut.has(moveKey(m)) ? "timeout" : ""}`.trim() },
    el("span", { class: "move-n", text: `${num(m.n)}.` }), " ", el("span", {}, ...moveNodes(view, m, timedOut.has(moveKey(m))))));
  if (typeof view.resigned === "number" && view.status === "finished") {
    const mine = isSeated(view) && view.resigned === sideOfSeat(view, view.you);
    items.unshift(el("li", { class: "resigned", "data-resigned": view.resigned },
      el("span", { class: "move-n", text: "\u2691" }), " ",
      el("span", {}, ...(mine ? [t("result.you_resigned")] : tx("result.resigned", { side: el("span", {}, ...sideLabelNodes(view, view.resigned)) })))));
  }
  $("log").replaceChildren(...items);
}

// Timed-out plays are known by round, seat and card (a card is played once a round).
/** @param {{round: number, seat: number, card: string}} move */
export function moveKey(move) {
  return `${move.round}:${move.seat}:${String(move.card).toUpperCase()}`;
}

export { isolate, teamName };
