// @ts-check
// A finished game's analysis (GET /games/{id}/analysis): the "Analyse" button with its progress
// (game-over screen, profile history), and on the replay page the judged move of each step, a
// chart of each seat's running loss and a summary per seat. Its texts are the catalogues'
// `analysis.*` messages.
import { api, ApiError, cardText, el, errorText } from "./basra.js";
import { nm, t } from "./i18n.js";

/** @typedef {import("../generated/basra").components["schemas"]["Analysis"]} Analysis */
/** @typedef {import("../generated/basra").components["schemas"]["AnalysisProgress"]} AnalysisProgress */
/** @typedef {import("../generated/basra").components["schemas"]["AnalysisMove"]} AnalysisMove */
/** @typedef {import("../generated/basra").components["schemas"]["ReplayState"]} ReplayState */
/** @typedef {(seat: number) => string} Names */

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;
/** @type {Map<string, Promise<Analysis>>} */
const running = new Map(); // game id -> the one poll of its analysis in this page

const analysisPath = (/** @type {string} */ gameId) => `/games/${encodeURIComponent(gameId)}/analysis`;
const wait = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @typedef {{ done?: number, total?: number, busy?: number }} Progress */

// Ask until the analysis is done, telling `onProgress` of each step; resolves with it.
/**
 * @param {string} gameId
 * @param {(progress: Progress) => void} [onProgress]
 * @returns {Promise<Analysis>}
 */
export function fetchAnalysis(gameId, onProgress = () => {}) {
  let poll = running.get(gameId);
  if (!poll) {
    poll = (async () => {
      for (;;) {
        try {
          /** @type {{status: number, data: unknown, headers: Headers}} */
          const { status, data, headers } = await api("GET", analysisPath(gameId));
          // 200 answers the analysis, 202 how far it has got.
          if (status === 200) return /** @type {Analysis} */ (data);
          const progress = /** @type {AnalysisProgress} */ (data);
          onProgress({ done: progress.done, total: progress.total });
          await wait(Math.max(POLL_MS, 1000 * (Number(headers.get("Retry-After")) || 0)));
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 503) throw err;
          onProgress({ busy: err.retryAfter || 5 });
          await wait(1000 * (err.retryAfter || 5));
        }
      }
    })();
    running.set(gameId, poll);
    poll.catch(() => running.delete(gameId));
  }
  return poll;
}

/** @param {Progress} progress */
function progressText(progress) {
  if (progress.busy) return t("analysis.busy", { seconds: progress.busy });
  if (!progress.total) return t("analysis.starting");
  return t("analysis.progress", progress);
}

/** @type {Map<string, HTMLElement>} */
const buttons = new Map(); // game id -> its button, kept across re-renders of the page

// "Analyse": starts the analysis here and shows its progress, then links to the replay's.
/**
 * @param {string} gameId
 * @returns {HTMLElement}
 */
export function analyseButton(gameId) {
  const kept = buttons.get(gameId);
  if (kept) return kept;
  const href = `/replay/${encodeURIComponent(gameId)}#analysis`;
  const status = el("span", { class: "analysis-progress muted", role: "status", "aria-live": "polite" });
  const node = el("span", { class: "analyse", "data-game": gameId });
  const button = el("button", {
    type: "button", class: "button analyse-button", text: t("analysis.analyse"),
    onclick: () => {
      button.disabled = true;
      status.textContent = t("analysis.starting");
      fetchAnalysis(gameId, (progress) => { status.textContent = progressText(progress); })
        .then(() => {
          node.replaceChildren(el("a", { class: "button analysis-link", href, text: t("analysis.ready") }));
          node.dataset.done = "true";
        })
        .catch((err) => {
          button.disabled = false;
          status.textContent = t("analysis.failed", { reason: errorText(err) });
        });
    },
  });
  node.append(button, " ", status);
  buttons.set(gameId, node);
  return node;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {string | null} [text]
 */
function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

// Each seat's running loss after each move of the match: [[n, total so far], ...] per seat.
/**
 * @param {Analysis} analysis
 * @param {number} lastMove
 * @returns {Map<number, [number, number][]>}
 */
export function runningLoss(analysis, lastMove) {
  const series = new Map(analysis.seats.map((s) => /** @type {[number, [number, number][]]} */ ([s.seat, [[0, 0]]])));
  for (const move of analysis.moves) {
    const line = series.get(move.seat);
    if (line) line.push([move.n, line[line.length - 1][1] + move.loss]);
  }
  for (const line of series.values()) line.push([lastMove, line[line.length - 1][1]]);
  return series;
}

/**
 * @param {Analysis} analysis
 * @param {Names} names
 * @param {number} lastMove
 */
function lossChart(analysis, names, lastMove) {
  const width = 640, height = 200;
  const pad = { left: 40, right: 12, top: 12, bottom: 24 };
  const series = runningLoss(analysis, lastMove);
  const top = Math.max(1, ...[...series.values()].map((line) => line[line.length - 1][1]));
  const x = (/** @type {number} */ n) => pad.left + ((width - pad.left - pad.right) * n) / Math.max(1, lastMove);
  const y = (/** @type {number} */ v) => height - pad.bottom - ((height - pad.top - pad.bottom) * v) / top;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "analysis-chart", role: "img", "aria-label": t("analysis.chart") });
  chart.append(svg("title", {}, t("analysis.chart")));
  for (const v of [0, top / 2, top]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: 4, y: y(v) + 4, class: "axis" }, v.toFixed(1)));
  }
  chart.append(svg("text", { x: width - pad.right, y: height - 6, class: "axis", "text-anchor": "end" }, t("analysis.chart_axis", { n: lastMove })));
  let index = 0;
  for (const [seat, line] of series) {
    const points = line.map(([n, v]) => `${x(n).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points, class: `loss seat-line-${index}`, "data-seat": seat }));
    const [n, v] = line[line.length - 1];
    chart.append(svg("text", { x: x(n) - 4, y: y(v) - 6, class: `axis seat-label-${index}`, "text-anchor": "end" }, names(seat)));
    index += 1;
  }
  return chart;
}

/**
 * @param {Analysis} analysis
 * @param {Names} names
 */
function summary(analysis, names) {
  const head = el("tr", {}, ...["analysis.seat", "analysis.moves", "analysis.agreement", "analysis.average_loss"]
    .map((key) => el("th", { scope: "col", text: t(key) })));
  const rows = analysis.seats.map((s) => el("tr", { "data-seat": s.seat },
    el("th", { scope: "row" }, el("bdi", { text: names(s.seat) })),
    el("td", { text: s.moves }),
    el("td", { class: "agreement", text: s.agreement === null ? "\u2013" : `${Math.round(100 * s.agreement)}%` }),
    el("td", { class: "average-loss", text: s.average_loss === null ? "\u2013" : s.average_loss.toFixed(2) })));
  return el("table", { class: "analysis-summary" }, el("thead", {}, head), el("tbody", {}, ...rows));
}

// The replay page's panel: `show(step, state)` after each step; started by `start()` (the
// "Analyse" button) or at once when the page's address ends in #analysis.
/**
 * @typedef {object} AnalysisPanel
 * @property {Analysis | null} analysis
 * @property {Map<number, AnalysisMove>} byMove
 * @property {number} step
 * @property {ReplayState | null} state
 * @property {(step: number, state: ReplayState | null) => void} show
 * @property {() => Promise<void>} start
 */
/**
 * @param {HTMLElement} section
 * @param {string} gameId
 * @param {number} totalMoves
 * @returns {AnalysisPanel}
 */
export function mountAnalysis(section, gameId, totalMoves) {
  const moveLine = el("p", { id: "analysis-move", class: "analysis-move", "aria-live": "polite" });
  const body = el("div", { class: "analysis-body" });
  const controls = el("div", { class: "analysis-controls" });
  section.replaceChildren(el("h2", { id: "analysis-title", text: t("analysis.title") }),
    el("p", { class: "muted", text: t("analysis.intro") }), controls, moveLine, body);
  /** @type {AnalysisPanel} */
  const panel = { analysis: null, byMove: new Map(), step: 0, state: null, show, start };

  const names = (/** @type {number} */ seat) => nameOf(panel.state, seat);
  const drawn = () => { // the summary and chart, once both the analysis and the names are in
    if (section.dataset.ready || !panel.analysis || !panel.state) return;
    body.replaceChildren(summary(panel.analysis, names), lossChart(panel.analysis, names, totalMoves));
    section.dataset.ready = "true";
  };

  /**
   * @param {number} step
   * @param {ReplayState | null} state
   */
  function show(step, state) {
    panel.step = step;
    panel.state = state || panel.state;
    if (!panel.analysis) return;
    drawn();
    if (step === 0) {
      moveLine.textContent = t("analysis.before");
      moveLine.dataset.n = "";
      return;
    }
    const judged = panel.byMove.get(step);
    moveLine.dataset.n = String(step);
    if (!judged) {
      moveLine.textContent = t("analysis.not_judged");
      moveLine.dataset.loss = "";
      return;
    }
    const params = { name: nm(names(judged.seat)), card: cardText(judged.card), best: cardText(judged.best),
      loss: judged.loss.toFixed(2), value: judged.values[judged.card].toFixed(2) };
    moveLine.textContent = t(judged.card === judged.best ? "analysis.agreed" : "analysis.gave_up", params);
    moveLine.dataset.loss = String(judged.loss);
    moveLine.dataset.best = judged.best;
  }

  function start() {
    const ask = button.querySelector("button");
    if (ask && !ask.disabled) ask.click(); // its progress shows beside it
    return fetchAnalysis(gameId, () => {}).then((analysis) => {
      panel.analysis = analysis;
      panel.byMove = new Map(analysis.moves.map((m) => [m.n, m]));
      controls.replaceChildren();
      panel.show(panel.step, panel.state);
    });
  }

  const button = analyseButton(gameId);
  button.querySelector("button")?.addEventListener("click", () => panel.start().catch(() => {}));
  controls.replaceChildren(button);
  if (location.hash === "#analysis") {
    panel.start().catch((err) => { controls.replaceChildren(el("p", { class: "status error", text: t("analysis.failed", { reason: errorText(err) }) })); });
  }
  return panel;
}

/**
 * @param {ReplayState | null} state
 * @param {number} seat
 */
function nameOf(state, seat) {
  const entry = ((state && state.seats) || []).find((s) => s.seat === seat);
  return (entry && entry.name) || `Seat ${seat}`;
}
