// Drawing the table from a view: seats around the floor (partners across), the scoreboard per
// side, the hand, the rounds table and the result. No requests are made here.
import { cardBack, cardFace, cardName, cardText, cardsText, el, seatName, describeMove } from "./basra.js";
import { analyseButton } from "./analysis.js";

const $ = (id) => document.getElementById(id);
const TEAM = ["Team A", "Team B"];

export function isSeated(view) {
  return view && view.you !== undefined && view.you !== null;
}

export function yourTurn(view) {
  return Boolean(view && view.status === "active" && isSeated(view) && view.turn === view.you);
}

function seatOf(view, seat) {
  return (view.seats || []).find((s) => s.seat === seat) || { seat, side: seat % 2 };
}

function sideOfSeat(view, seat) {
  const entry = seatOf(view, seat);
  return entry.side ?? seat % 2;
}

function teams(view) {
  return (view.seats || []).length === 4;
}

// "Alice", or in a four-player game "Alice (partner)" / "Bob (Team B)".
function who(view, seat) {
  const name = seatName(view, seat);
  if (isSeated(view) && seat === view.you) return "You";
  if (!teams(view)) return name;
  if (isSeated(view) && sideOfSeat(view, seat) === sideOfSeat(view, view.you)) return `${name} (your partner)`;
  return name;
}

export function sideLabel(view, side) {
  const names = (view.seats || []).filter((s) => s.side === side).map((s) =>
    (isSeated(view) && s.seat === view.you ? `${seatName(view, s.seat)} (you)` : seatName(view, s.seat)));
  const joined = names.join(" & ") || `Side ${side}`;
  return teams(view) ? `${TEAM[side] || `Side ${side}`}: ${joined}` : joined;
}

export function moveText(view, move) {
  const text = describeMove(view, move, view.you);
  if (!teams(view) || (isSeated(view) && move.seat === view.you)) return text;
  return text.replace(seatName(view, move.seat), who(view, move.seat));
}

// Where each seat sits: you (or seat 0 for a spectator) at the bottom, partners across.
function place(view, seat) {
  const count = (view.seats || []).length || 2;
  const base = isSeated(view) ? view.you : 0;
  const rel = (seat - base + count) % count;
  if (count === 2) return rel === 0 ? "bottom" : "top";
  return ["bottom", "left", "top", "right"][rel];
}

// ---- match totals ------------------------------------------------------------------------

function roundBasras(view, round, side, kind, moves) {
  const entry = (view.rounds || []).find((r) => r.round === round);
  if (entry && Array.isArray(entry[kind])) return entry[kind][side] ?? 0;
  const want = kind === "jack_basras" ? "jack_basra" : "basra";
  return moves.filter((m) => m.round === round && m.basra === want && sideOfSeat(view, m.seat) === side).length;
}

export function matchBasras(view, side, kind, moves = []) {
  let total = 0;
  for (const r of view.rounds || []) total += roundBasras(view, r.round, side, kind, moves);
  const scored = (view.rounds || []).some((r) => r.round === view.round);
  if (!scored) total += (view.sides || []).find((s) => s.side === side)?.[kind] ?? 0;
  return total;
}

// ---- scoreboard ----------------------------------------------------------------------------

export function renderScoreboard(view, moves) {
  const target = view.target_score;
  const turnSide = view.turn === null || view.turn === undefined ? null : sideOfSeat(view, view.turn);
  const boxes = (view.sides || []).map((side) => {
    const mine = isSeated(view) && sideOfSeat(view, view.you) === side.side;
    const classes = ["side", mine ? "mine" : "", view.status === "active" && turnSide === side.side ? "to-move" : ""];
    const basras = matchBasras(view, side.side, "basras", moves);
    const jacks = matchBasras(view, side.side, "jack_basras", moves);
    return el("div", { class: classes.join(" "), "data-side": side.side },
      el("div", { class: "side-name", text: sideLabel(view, side.side) }),
      el("div", { class: "side-score" }, el("span", { class: "score", text: side.score ?? 0 }),
        el("span", { class: "of", text: target ? ` / ${target}` : "" })),
      el("div", { class: "side-stats" },
        el("span", { class: "pile-count", title: "Cards in the pile this round", text: `Pile ${side.captured ?? 0}` }),
        el("span", { class: "basras", title: "Basras: this round, and in the whole match",
          text: `Basras ${side.basras ?? 0} \u00b7 match ${basras}` }),
        el("span", { class: "jack-basras", title: "Jack basras: this round, and in the whole match",
          text: `Jack basras ${side.jack_basras ?? 0} \u00b7 match ${jacks}` })));
  });
  const info = el("div", { class: "match-info" },
    el("span", { text: view.status === "waiting" ? "Not dealt yet" : `Round ${view.round ?? 1}` }),
    view.custom_deck ? el("span", { class: "custom-deck", text: "Deck fixed by the creator" }) : null,
    el("span", { text: target ? `Target ${target}` : "" }));
  $("scoreboard").replaceChildren(info, ...boxes);
}

// ---- seats around the table --------------------------------------------------------------------

function lastPlays(view, moves) {
  const plays = new Map();
  for (const move of moves) if (move.round === view.round) plays.set(move.seat, move);
  return plays;
}

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
      s.bot && !named.toLowerCase().includes(String(s.bot).toLowerCase()) ? `${s.bot} bot` : null,
      partner ? "partner" : null,
      teams(view) ? TEAM[side] : null,
      view.dealer === s.seat ? "dealer" : null,
    ].filter(Boolean);
    const play = plays.get(s.seat);
    const now = ctx.playing && ctx.playing.seat === s.seat ? ctx.playing : null;
    const shown = now || play;
    const played = shown ? el("div", { class: `played ${now ? "now" : ""}`, "aria-hidden": "true" },
      el("span", { class: "played-label", text: now ? "plays" : "played" }),
      cardFace(shown.card, { attrs: { class: "small-face" } })) : null;
    const clock = toMove && ctx.deadline ? el("span", { class: "seat-clock", "data-deadline": ctx.deadline }) : null;
    const label = `${who(view, s.seat)}${teams(view) ? `, ${TEAM[side]}` : ""}: ${count} cards in hand`
      + `${toMove ? ", to play" : ""}${play ? `, last played ${cardName(play.card)}` : ""}`;
    return el("div", {
      class: `seat place-${place(view, s.seat)} side-${side} ${toMove ? "to-move" : ""} ${partner ? "partner" : ""}`,
      "data-seat": s.seat,
      "aria-label": label,
    },
    el("div", { class: "seat-name" }, el("span", { class: "name", text: named }),
      ...tags.map((t) => el("span", { class: "tag", text: t }))),
    el("div", { class: "seat-body" },
      el("div", { class: "fan", "aria-hidden": "true" },
        ...Array.from({ length: Math.min(count, 4) }, () => cardBack("small"))),
      played),
    el("div", { class: "seat-count" },
      !s.name && !s.bot && view.status === "waiting" ? "waiting for a player" : `${count} card${count === 1 ? "" : "s"}`,
      toMove ? el("span", { class: "to-play", text: " \u25b6 to play" }) : null, clock));
  }));
}

// ---- middle of the table -----------------------------------------------------------------------

export function renderStock(view) {
  const left = Array.isArray(view.stock) ? view.stock.length : view.stock ?? 0;
  $("stock").replaceChildren(
    left > 0 ? cardBack("stock-card") : el("div", { class: "card empty", "aria-hidden": "true" }),
    el("div", { class: "stock-count", text: `Stock ${left}` }),
  );
  $("stock").setAttribute("aria-label", `${left} cards left in the stock`);
}

export function renderFloor(view, ctx) {
  const floor = view.floor || [];
  const taking = new Set(ctx.playing ? ctx.playing.captured : []);
  const arrived = ctx.justPlayed && !ctx.justPlayed.captured.length ? ctx.justPlayed.card : null;
  if (!floor.length) {
    $("floor").replaceChildren(el("div", { class: "floor-empty", text: "The floor is empty" }));
    return;
  }
  $("floor").replaceChildren(...floor.map((code) => {
    const classes = [taking.has(code) ? "taking" : "", code === arrived ? "arrived" : ""].join(" ").trim();
    return cardFace(code, { attrs: { role: "listitem", "aria-label": cardName(code), class: classes } });
  }));
}

export function renderTurn(view, ctx) {
  let text = "";
  if (view.status === "waiting") text = "Waiting for players to join\u2026";
  else if (view.status === "finished") text = "Game over";
  else if (view.status === "cancelled") text = "This game was cancelled: nobody joined in time.";
  else if (yourTurn(view) && !ctx.animating) text = "Your turn \u2014 pick a card (keys 1\u20134)";
  else if (view.turn !== null && view.turn !== undefined) text = `${who(view, view.turn)} to play\u2026`;
  const node = $("turn");
  node.textContent = text;
  node.className = `turn ${yourTurn(view) && !ctx.animating ? "yours" : ""}`;
  const you = view.you;
  const team = teams(view) && isSeated(view) ? ` \u00b7 ${TEAM[sideOfSeat(view, you)]}` : "";
  $("you-label").textContent = !isSeated(view)
    ? "You are watching this game."
    : `${seatName(view, you)}${team}${view.dealer === you ? " \u00b7 dealer" : ""}`;
}

function legalFor(view, code) {
  return (view.legal_moves || []).find((m) => String(m.card).toUpperCase() === code.toUpperCase());
}

export function previewText(code, legal) {
  if (!legal) return "";
  const took = legal.captured && legal.captured.length;
  const basra = legal.basra === "jack_basra" ? " \u2014 jack basra!" : legal.basra ? " \u2014 basra!" : "";
  return took ? `${cardText(code)} would take ${cardsText(legal.captured)}${basra}`
    : `${cardText(code)} would take nothing (it stays on the floor)`;
}

export function highlight(view, code) {
  const legal = code && view ? legalFor(view, code) : null;
  const targets = new Set(((legal && legal.captured) || []).map((c) => String(c).toUpperCase()));
  for (const card of $("floor").querySelectorAll(".card")) card.classList.toggle("target", targets.has(card.dataset.card));
  $("caption").textContent = legal ? previewText(code, legal) : "";
}

export function renderHand(view, ctx) {
  const hand = view.hand || [];
  const mine = yourTurn(view) && !ctx.animating;
  // Keep the keyboard where it was: on the same card (or the first) if the hand had focus.
  const active = document.activeElement;
  const handHadFocus = Boolean(active && active.closest && active.closest("#hand"));
  const idle = !active || active === document.body;
  const focused = handHadFocus ? active.dataset.card : idle ? ctx.focusCard : null;
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
    button.addEventListener("click", () => ctx.onPlay(code));
    button.addEventListener("mouseenter", () => highlight(view, code));
    button.addEventListener("mouseleave", () => highlight(view, null));
    button.addEventListener("focus", () => {
      ctx.onFocus(code);
      highlight(view, code);
    });
    button.addEventListener("blur", () => highlight(view, null));
    return button;
  });
  const handNode = $("hand");
  handNode.replaceChildren(...buttons);
  handNode.hidden = !isSeated(view);
  $("felt").querySelector(".me").classList.toggle("to-move", view.status === "active" && isSeated(view) && view.turn === view.you);
  $("caption").textContent = "";
  if (focused) {
    const again = handNode.querySelector(`[data-card="${focused}"]`) || handNode.querySelector("button");
    if (again) again.focus({ preventScroll: true });
  }
}

// ---- below the table ---------------------------------------------------------------------------

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function renderRounds(view, moves) {
  const rounds = view.rounds || [];
  const sides = view.sides || [];
  if (!rounds.length) {
    $("rounds").replaceChildren(el("p", { class: "muted", text: "No round scored yet." }));
    return;
  }
  const head = el("tr", {}, el("th", { scope: "col", text: "Round" }),
    ...sides.map((s) => el("th", { scope: "col", text: sideLabel(view, s.side) })));
  const rows = rounds.map((r) => el("tr", { "data-round": r.round }, el("th", { scope: "row", text: r.round }),
    ...sides.map((s) => {
      const parts = [];
      if (r.cards) parts.push(`${r.cards[s.side]} cards${r.majority === s.side ? " (most)" : ""}`);
      const basras = roundBasras(view, r.round, s.side, "basras", moves);
      const jacks = roundBasras(view, r.round, s.side, "jack_basras", moves);
      if (basras) parts.push(plural(basras, "basra"));
      if (jacks) parts.push(plural(jacks, "jack basra"));
      return el("td", {}, el("b", { text: (r.points || [])[s.side] ?? 0 }),
        el("span", { class: "why", text: parts.length ? ` \u2014 ${parts.join(", ")}` : "" }));
    })));
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: "Total" }),
    ...sides.map((s) => el("td", { text: s.score ?? 0 })));
  $("rounds").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows, total)));
}

export function renderResult(view, gameId) {
  const node = $("result");
  if (view.status !== "finished" && view.status !== "cancelled") {
    node.hidden = true;
    return;
  }
  const winner = view.winner;
  const yourSide = isSeated(view) ? sideOfSeat(view, view.you) : null;
  let headline;
  if (view.status === "cancelled") headline = "Cancelled: nobody joined in time.";
  else if (winner === null || winner === undefined) headline = "It's a draw.";
  else if (yourSide === winner) headline = teams(view) ? "Your team wins!" : "You win!";
  else headline = `${sideLabel(view, winner)} ${teams(view) ? "win" : "wins"}.`;
  if (typeof view.resigned === "number") {
    headline += view.resigned === yourSide ? " (your side resigned)" : ` (${sideLabel(view, view.resigned)} resigned)`;
  }
  const scores = (view.sides || []).map((s) => `${sideLabel(view, s.side)} ${s.score}`).join(" \u00b7 ");
  node.replaceChildren(
    el("h2", { id: "winner", text: headline }),
    el("p", { text: scores }),
    el("p", { class: "result-links" },
      el("a", { id: "replay-link", class: "button primary", href: `/replay/${encodeURIComponent(view.id || gameId)}`, text: "Watch the replay" }),
      view.status === "finished" ? analyseButton(view.id || gameId) : null,
      el("a", { class: "button", href: "/", text: "New game" })),
  );
  node.hidden = false;
  node.dataset.winner = winner === null || winner === undefined ? "" : String(winner);
}

export function renderLog(view, moves) {
  const recent = moves.slice(-12).reverse();
  $("log").replaceChildren(...recent.map((m) =>
    el("li", { value: m.n, class: m.basra ? "basra" : "" }, moveText(view, m))));
}
