// @ts-check
// A player's page: rating, a chart of it over rated games, the games with links to their
// replays, and the leaderboard. /profile is this browser's own player, /profile/<id> anyone's.
import { api, botLevel, el, errorText } from "./basra.js";
import { dateTime, initI18n, num, t, tx } from "./i18n.js";
import { ensurePlayer, playerId, ratingNumber, ratingText, refreshPlayer, renamePlayer } from "./player.js";
import { analyseButton } from "./analysis.js";
import { byId as $, fieldById } from "./dom.js";

/** @typedef {import("../generated/basra").components["schemas"]["PlayerProfile"]} PlayerProfile */
/** @typedef {import("../generated/basra").components["schemas"]["PlayerGame"]} PlayerGame */
/** @typedef {import("../generated/basra").components["schemas"]["PlayerGamesPage"]} PlayerGamesPage */
/** @typedef {import("../generated/basra").components["schemas"]["Leaderboard"]} Leaderboard */
/** @typedef {import("../generated/basra").components["schemas"]["Stats"]} Stats */
/** @typedef {import("./player.js").Me} Me */

const PAGE = 20;
const CHART_GAMES = 200; // the chart reads at most this many games back
const SVG = "http://www.w3.org/2000/svg";
/** @type {{id: string | null, cursor: string | null, rated: PlayerGame[]}} */
const profile = { id: null, cursor: null, rated: [] };

/** The id of the player shown, which start() sets before anything is asked about it. */
function shownId() {
  if (profile.id === null) throw new Error("no player is shown yet");
  return profile.id;
}

/** @param {string} message */
function setStatus(message, kind = "info") {
  $("status").textContent = message || "";
  $("status").className = `status ${kind}`;
}

/** @param {unknown} err */
function showError(err) {
  setStatus(errorText(err), "error");
}

const playerPath = (/** @type {string} */ id, suffix = "") => `/players/${encodeURIComponent(id)}${suffix}`;

/** @param {PlayerProfile | Me} player */
function drawPlayer(player) {
  document.title = `${player.name} \u2014 ${t("app.title")}`;
  $("profile").dataset.player = player.id;
  $("profile-name").replaceChildren(el("bdi", { text: player.name }));
  $("profile-bot").hidden = !player.bot;
  $("profile-bot").textContent = player.bot ? t("profile.bot", { level: botLevel(player.bot) }) : "";
  const rating = player.rating || {};
  $("rating-value").textContent = ratingText(rating);
  $("rating-deviation").textContent = rating.deviation ? `\u00b1 ${ratingNumber(rating.deviation)}` : "";
  $("rating-provisional").hidden = !rating.provisional;
  /** @type {Partial<Stats>} */
  const stats = player.stats || {};
  for (const key of /** @type {const} */ (["played", "won", "lost", "drawn"])) $(`stat-${key}`).textContent = num(stats[key] || 0);
  const mine = player.id === playerId();
  $("rename-form").hidden = !mine;
  if (mine) fieldById("rename").value = player.name;
}

// ---- the chart: one point per rated game, oldest on the left ------------------------------------

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

/**
 * @param {PlayerGame} g
 * @returns {g is PlayerGame & {rating_after: number}}
 */
const ratedWithRating = (g) => g.rated && typeof g.rating_after === "number";

/**
 * @param {PlayerGame[]} games
 * @returns {number[]}
 */
export function chartPoints(games) {
  // History comes newest first; the chart reads left to right in time.
  const rated = games.filter(ratedWithRating).reverse();
  if (!rated.length) return [];
  const start = typeof rated[0].rating_before === "number" ? [rated[0].rating_before] : [];
  return [...start, ...rated.map((g) => g.rating_after)];
}

/** @param {number[]} values */
function drawChart(values) {
  const box = $("chart");
  box.dataset.points = String(values.length);
  if (values.length < 2) {
    box.replaceChildren(el("p", { class: "muted", text: t("profile.no_chart") }));
    return;
  }
  const width = 640;
  const height = 220;
  const pad = { left: 48, right: 12, top: 12, bottom: 24 };
  const spread = Math.max(Math.max(...values) - Math.min(...values), 1);
  const low = Math.min(...values) - spread / 8;
  const high = Math.max(...values) + spread / 8;
  const x = (/** @type {number} */ i) => pad.left + (i * (width - pad.left - pad.right)) / (values.length - 1);
  const y = (/** @type {number} */ v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "rating-chart",
    "aria-label": t("profile.chart_label", { from: ratingNumber(values[0]), to: ratingNumber(values[values.length - 1]), count: values.length - 1 }) });
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, ratingNumber(v)));
  }
  chart.append(svg("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "axis" }, t("profile.now")));
  chart.append(svg("text", { x: pad.left, y: height - 6, class: "axis" }, t("profile.games_ago", { count: values.length - 1 })));
  const line = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: line, class: "line" }));
  values.forEach((v, i) => chart.append(svg("circle", { cx: x(i), cy: y(v), r: 3, class: "point" })));
  box.replaceChildren(chart);
}

// ---- games and the leaderboard --------------------------------------------------------------------

/** @param {PlayerGame} game */
function resultText(game) {
  if (game.result) return t(`games.result.${game.result}`);
  return t(`games.status.${game.status}`);
}

/** @param {PlayerGame} game */
function changeText(game) {
  if (!game.rated || typeof game.rating_after !== "number" || typeof game.rating_before !== "number") return "";
  const delta = game.rating_after - game.rating_before;
  return ` \u00b7 ${t("profile.rating_change", { change: `${delta >= 0 ? "+" : "\u2212"}${ratingNumber(Math.abs(delta))}` })}`;
}

/** @param {PlayerGame} game */
function historyItem(game) {
  const finished = game.status === "finished";
  const href = finished ? `/replay/${encodeURIComponent(game.id)}` : `/play/${encodeURIComponent(game.id)}`;
  // API.md 23: the entry names the players and gives the scores, the time and whose turn it is.
  const others = (game.players || []).filter((p) => p.player !== profile.id)
    .map((p) => p.name || (p.bot ? t("bot.name", { level: botLevel(p.bot) }) : t("seat.open")));
  const names = others.flatMap((n, i) => (i ? [t("side.joiner"), el("bdi", { text: n })] : [el("bdi", { text: n })]));
  const label = names.length ? tx("games.versus", { names: el("span", {}, ...names) }) : [t("games.a_game")];
  const own = (game.players || []).find((p) => p.player === profile.id);
  const side = own ? own.seat % 2 : 0;
  const ordered = Array.isArray(game.scores) ? [game.scores[side], ...game.scores.filter((_, s) => s !== side)] : null;
  const scores = ordered ? ` \u00b7 ${ordered.map((s) => num(s ?? 0)).join(" : ")}` : "";
  const when = game.updated_at ? ` \u00b7 ${dateTime(game.updated_at)}` : "";
  return el("li", { class: `game result-${game.result || "none"}`, "data-game": game.id },
    el("a", { href }, ...label),
    el("span", { text: ` \u2014 ${resultText(game)}${game.rated ? ` ${t("games.rated")}` : ""}${changeText(game)}${scores}${when}` }),
    game.your_turn ? el("span", { class: "game-status your-turn", text: ` \u00b7 ${t("games.your_turn")}` }) : null,
    finished ? el("span", { class: "muted", text: ` \u00b7 ${t("games.replay")}` }) : null,
    finished ? analyseButton(game.id) : null);
}

async function moreGames() {
  const cursor = profile.cursor ? `&cursor=${encodeURIComponent(profile.cursor)}` : "";
  /** @type {{data: PlayerGamesPage}} */
  const { data } = await api("GET", playerPath(shownId(), `/games?limit=${PAGE}${cursor}`));
  const games = (data && data.games) || [];
  $("history").append(...games.map(historyItem));
  profile.cursor = data && data.next_cursor;
  $("more-games").hidden = !profile.cursor;
  if (!$("history").children.length) $("history").append(el("li", { class: "muted empty", text: t("profile.no_games") }));
}

async function ratingHistory() {
  /** @type {PlayerGame[]} */
  const games = [];
  /** @type {string | null} */
  let cursor = null;
  while (games.length < CHART_GAMES) {
    const after = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    /** @type {{data: PlayerGamesPage}} */
    const { data } = await api("GET", playerPath(shownId(), `/games?limit=100${after}`));
    games.push(...((data && data.games) || []));
    cursor = data && data.next_cursor;
    if (!cursor) break;
  }
  drawChart(chartPoints(games));
}

async function leaderboard() {
  /** @type {{data: Leaderboard}} */
  const { data } = await api("GET", "/leaderboard?limit=20");
  const players = (data && data.players) || [];
  $("leaderboard").replaceChildren(...players.map((p) => el("li", { "data-player": p.id, class: p.id === profile.id ? "me" : "" },
    el("a", { href: `/profile/${encodeURIComponent(p.id)}` }, el("bdi", { text: p.name })),
    el("span", { class: "muted", text: ` ${ratingText(p.rating)}${p.bot ? ` ${t("profile.bot_tag")}` : ""}` }))));
  if (!players.length) $("leaderboard").append(el("li", { class: "muted empty", text: t("profile.no_leaders") }));
}

/** @param {SubmitEvent} event */
async function rename(event) {
  event.preventDefault();
  const name = fieldById("rename").value.trim();
  if (!name) return;
  try {
    drawPlayer({ ...(await renamePlayer(name)) });
    showMe(await refreshPlayer());
    setStatus(t("profile.saved"), "good");
  } catch (err) {
    showError(err);
  }
}

/** @param {Me} me */
function showMe(me) {
  $("me-link").replaceChildren(el("bdi", { class: "me-name", text: me.name }), " ",
    el("span", { class: "me-rating", text: ratingText(me.rating) }));
}

async function start() {
  await initI18n();
  $("rename-form").addEventListener("submit", rename);
  $("more-games").addEventListener("click", () => moreGames().catch(showError));
  try {
    const me = await ensurePlayer();
    showMe(me);
    const match = location.pathname.match(/^\/profile\/([^/]+)\/?$/);
    const id = match ? decodeURIComponent(match[1]) : me.id;
    profile.id = id;
    /** @type {PlayerProfile} */
    const player = id === me.id ? (await api("GET", "/players/me", { token: me.token })).data
      : (await api("GET", playerPath(id))).data;
    drawPlayer(player);
    await Promise.all([moreGames(), ratingHistory(), leaderboard()]);
    $("main").dataset.ready = "true";
  } catch (err) {
    showError(err);
  }
}

start();
