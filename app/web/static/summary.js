// @ts-check
// The round-end summary: per side the cards taken (and the majority points), basras, jack basras,
// who took the last capture (and with it the floor), the round's points and the match totals.
// It waits for "Continue" or a few seconds (`basra:summary-seconds`, 6 by default) before the
// table moves on to the next deal.
import { byId as $, el } from "./dom.js";
import { num, t, tx } from "./i18n.js";
import { lastCapture, roundBasras, sideLabelNodes, sideOfSeat } from "./table.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("./game_state.js").Move} Move */
/** @typedef {import("../generated/basra").components["schemas"]["Round"]} Round */
/**
 * A view as the summary reads it. A view carries no rules today; one that did would give the
 * majority's points.
 * @typedef {View & {rules?: {majority_points?: number}}} SummaryView
 */

const SECONDS_KEY = "basra:summary-seconds";

function waitSeconds() {
  const stored = localStorage.getItem(SECONDS_KEY);
  const value = Number(stored);
  return stored !== null && Number.isFinite(value) && value >= 0 ? value : 6;
}

/**
 * @param {SummaryView} view
 * @param {Round} round
 * @param {Move[]} moves
 */
export function summaryRows(view, round, moves) {
  const majorityPoints = (view.rules && view.rules.majority_points) ?? null;
  return (view.sides || []).map((side) => {
    const s = side.side;
    const cards = round.cards ? round.cards[s] : null;
    return {
      side: s,
      cards,
      majority: round.majority === s,
      majorityPoints,
      basras: roundBasras(view, round.round, s, "basras", moves),
      jackBasras: roundBasras(view, round.round, s, "jack_basras", moves),
      points: (round.points || [])[s] ?? 0,
      total: side.score ?? 0,
    };
  });
}

/** @param {string} text */
function cell(text, cls = "") {
  return el("td", { class: cls, text });
}

/**
 * @param {SummaryView} view
 * @param {Round} round
 * @param {Move[]} moves
 */
export function summaryNode(view, round, moves) {
  const rows = summaryRows(view, round, moves);
  const last = lastCapture(moves, round.round);
  const head = el("tr", {}, el("th", { scope: "col", text: "" }),
    ...rows.map((r) => el("th", { scope: "col" }, ...sideLabelNodes(view, r.side))));
  /**
   * @param {string} label
   * @param {HTMLElement[]} values
   * @param {string} cls
   */
  const line = (label, values, cls) => el("tr", { class: cls }, el("th", { scope: "row", text: label }), ...values);
  const table = el("table", { class: "summary-table" }, el("thead", {}, head), el("tbody", {},
    line(t("summary.cards"), rows.map((r) => cell(r.cards === null ? "" : `${num(r.cards)}${r.majority ? ` \u2605 ${r.majorityPoints ? `+${num(r.majorityPoints)}` : t("summary.majority")}` : ""}`, r.majority ? "majority" : "")), "cards"),
    line(t("summary.basras"), rows.map((r) => cell(num(r.basras))), "basras"),
    line(t("summary.jack_basras"), rows.map((r) => cell(num(r.jackBasras))), "jack-basras"),
    line(t("summary.points"), rows.map((r) => cell(`+${num(r.points)}`)), "points"),
    line(t("summary.total"), rows.map((r) => cell(num(r.total))), "total")));
  const lastLine = last
    ? el("p", { class: "summary-last" }, ...tx("summary.last_capture", { side: el("span", {}, ...sideLabelNodes(view, sideOfSeat(view, last.seat))) }))
    : el("p", { class: "summary-last", text: t("summary.no_capture") });
  return [el("h2", { id: "summary-title", text: t("summary.title", { n: round.round }) }), table, lastLine];
}

// Shows the summary and resolves when the player continues or the seconds have passed.
/**
 * @param {SummaryView} view
 * @param {Round} round
 * @param {Move[]} moves
 * @returns {Promise<void>}
 */
export function showRoundSummary(view, round, moves) {
  const dialog = $("round-summary");
  const body = $("summary-body");
  const button = $("summary-continue");
  body.replaceChildren(...summaryNode(view, round, moves));
  dialog.hidden = false;
  dialog.dataset.round = String(round.round);
  const seconds = view.status === "active" ? waitSeconds() : 0;
  return new Promise((resolve) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const done = () => {
      clearTimeout(timer);
      button.removeEventListener("click", done);
      if (view.status === "active") dialog.hidden = true; // the last round's summary stays by the result
      resolve();
    };
    button.hidden = view.status !== "active";
    button.addEventListener("click", done);
    if (view.status !== "active") {
      done();
      return;
    }
    button.focus({ preventScroll: true });
    timer = setTimeout(done, seconds * 1000);
  });
}
