// A player's page: rating, a chart of it over rated games, the games with links to their
// replays, and the leaderboard. /profile is this browser's own player, /profile/<id> anyone's.
import { api, ApiError, el } from "./basra.js";
import { analyseButton } from "./analysis.js";
import { ensurePlayer, playerId, ratingNumber, ratingText, renamePlayer } from "./player.js";

const $ = (id) => document.getElementById(id);
const PAGE = 20;
const CHART_GAMES = 200; // the chart reads at most this many games back
const SVG = "http://www.w3.org/2000/svg";
const profile = { id: null, cursor: null, rated: [] };

function setStatus(message, kind = "info") {
  $("status").textContent = message || "";
  $("status").className = `status ${kind}`;
}

function showError(err) {
  setStatus(err instanceof ApiError ? err.message : String((err && err.message) || err), "error");
}

const playerPath = (id, suffix = "") => `/players/${encodeURIComponent(id)}${suffix}`;

function drawPlayer(player) {
  document.title = `Basra \u2014 ${player.name}`;
  $("profile").dataset.player = player.id;
  $("profile-name").textContent = player.name;
  $("profile-bot").hidden = !player.bot;
  $("profile-bot").textContent = player.bot ? `The ${player.bot} bot: a computer player.` : "";
  const rating = player.rating || {};
  $("rating-value").textContent = ratingText(rating);
  $("rating-deviation").textContent = rating.deviation ? `\u00b1 ${ratingNumber(rating.deviation)}` : "";
  $("rating-provisional").hidden = !rating.provisional;
  const stats = player.stats || {};
  for (const key of ["played", "won", "lost", "drawn"]) $(`stat-${key}`).textContent = String(stats[key] || 0);
  const mine = player.id === playerId();
  $("rename-form").hidden = !mine;
  if (mine) $("rename").value = player.name;
}

// ---- the chart: one point per rated game, oldest on the left ------------------------------------

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

export function chartPoints(games) {
  // History comes newest first; the chart reads left to right in time.
  const rated = games.filter((g) => g.rated && typeof g.rating_after === "number").reverse();
  if (!rated.length) return [];
  const start = typeof rated[0].rating_before === "number" ? [rated[0].rating_before] : [];
  return [...start, ...rated.map((g) => g.rating_after)];
}

function drawChart(values) {
  const box = $("chart");
  box.dataset.points = String(values.length);
  if (values.length < 2) {
    box.replaceChildren(el("p", { class: "muted", text: "No rated game finished yet: play one to see your rating move." }));
    return;
  }
  const width = 640;
  const height = 220;
  const pad = { left: 48, right: 12, top: 12, bottom: 24 };
  const spread = Math.max(Math.max(...values) - Math.min(...values), 1);
  const low = Math.min(...values) - spread / 8;
  const high = Math.max(...values) + spread / 8;
  const x = (i) => pad.left + (i * (width - pad.left - pad.right)) / (values.length - 1);
  const y = (v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "rating-chart",
    "aria-label": `Rating from ${ratingNumber(values[0])} to ${ratingNumber(values[values.length - 1])} over ${values.length - 1} rated games` });
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, ratingNumber(v)));
  }
  chart.append(svg("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "axis" }, "now"));
  chart.append(svg("text", { x: pad.left, y: height - 6, class: "axis" }, `${values.length - 1} games ago`));
  const line = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: line, class: "line" }));
  values.forEach((v, i) => chart.append(svg("circle", { cx: x(i), cy: y(v), r: 3, class: "point" })));
  box.replaceChildren(chart);
}

// ---- games and the leaderboard --------------------------------------------------------------------

function resultText(game) {
  if (game.result) return game.result;
  return game.status === "cancelled" ? "cancelled" : game.status;
}

function changeText(game) {
  if (!game.rated || typeof game.rating_after !== "number" || typeof game.rating_before !== "number") return "";
  const delta = game.rating_after - game.rating_before;
  return ` \u00b7 rating ${delta >= 0 ? "+" : "\u2212"}${ratingNumber(Math.abs(delta))}`;
}

function historyItem(game) {
  const finished = game.status === "finished";
  const href = finished ? `/replay/${encodeURIComponent(game.id)}` : `/play/${encodeURIComponent(game.id)}`;
  return el("li", { class: `game result-${game.result || "none"}`, "data-game": game.id },
    el("a", { href, text: `Game ${game.id}` }),
    el("span", { text: ` \u2014 ${resultText(game)}${game.rated ? " (rated)" : ""}${changeText(game)}` }),
    finished ? el("span", { class: "muted", text: " \u00b7 replay " }) : null,
    finished ? analyseButton(game.id) : null);
}

async function moreGames() {
  const cursor = profile.cursor ? `&cursor=${encodeURIComponent(profile.cursor)}` : "";
  const { data } = await api("GET", playerPath(profile.id, `/games?limit=${PAGE}${cursor}`));
  const games = (data && data.games) || [];
  $("history").append(...games.map(historyItem));
  profile.cursor = data && data.next_cursor;
  $("more-games").hidden = !profile.cursor;
  if (!$("history").children.length) $("history").append(el("li", { class: "muted empty", text: "No games yet." }));
}

async function ratingHistory() {
  const games = [];
  let cursor = null;
  while (games.length < CHART_GAMES) {
    const after = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const { data } = await api("GET", playerPath(profile.id, `/games?limit=100${after}`));
    games.push(...((data && data.games) || []));
    cursor = data && data.next_cursor;
    if (!cursor) break;
  }
  drawChart(chartPoints(games));
}

async function leaderboard() {
  const { data } = await api("GET", "/leaderboard?limit=20");
  const players = (data && data.players) || [];
  $("leaderboard").replaceChildren(...players.map((p) => el("li", { "data-player": p.id, class: p.id === profile.id ? "me" : "" },
    el("a", { href: `/profile/${encodeURIComponent(p.id)}`, text: p.name }),
    el("span", { class: "muted", text: ` ${ratingText(p.rating)}${p.bot ? " (bot)" : ""}` }))));
  if (!players.length) $("leaderboard").append(el("li", { class: "muted empty", text: "Nobody has played enough rated games yet." }));
}

async function rename(event) {
  event.preventDefault();
  const name = $("rename").value.trim();
  if (!name) return;
  try {
    drawPlayer({ ...(await renamePlayer(name)) });
    setStatus("Name saved.", "good");
  } catch (err) {
    showError(err);
  }
}

async function start() {
  $("rename-form").addEventListener("submit", rename);
  $("more-games").addEventListener("click", () => moreGames().catch(showError));
  try {
    const me = await ensurePlayer();
    $("me-link").textContent = `${me.name} (${ratingText(me.rating)})`;
    const match = location.pathname.match(/^\/profile\/([^/]+)\/?$/);
    profile.id = match ? decodeURIComponent(match[1]) : me.id;
    const player = profile.id === me.id ? (await api("GET", "/players/me", { token: me.token })).data
      : (await api("GET", playerPath(profile.id))).data;
    drawPlayer(player);
    await Promise.all([moreGames(), ratingHistory(), leaderboard()]);
    $("main").dataset.ready = "true";
  } catch (err) {
    showError(err);
  }
}

start();
