// @ts-check
// The lists of games in the lobby: the player's own (opponents, score, date, whose turn), or
// without a player the games this browser holds a seat in; and the public games waiting for one.
import { api, el, loadSeat, seatName } from "./basra.js";
import { dateTime, num, t, tx } from "./i18n.js";
import { ensurePlayer } from "./player.js";
import { sideOfSeat } from "./table.js";
import { byId as $ } from "./dom.js";

/** @typedef {import("./game_state.js").View} View */
/** @typedef {import("../generated/basra").components["schemas"]["PlayerGame"]} PlayerGame */
/** @typedef {import("../generated/basra").components["schemas"]["PlayerGamesPage"]} PlayerGamesPage */
/** @typedef {import("../generated/basra").components["schemas"]["GamesPage"]} GamesPage */
/** @typedef {import("../generated/basra").components["schemas"]["ListedSeat"]} ListedSeat */

// The player's games (API.md 23: opponents, scores, when, whose turn), newest first; without a
// player, the games this browser holds a seat in, each from its own view.
export function listMyGames() {
  ensurePlayer()
    .then((player) => api("GET", `/players/${encodeURIComponent(player.id)}/games?limit=8`, { token: player.token })
      .then((/** @type {{data: PlayerGamesPage}} */ { data }) => ({ player, games: (data && data.games) || [] })))
    .then(({ player, games }) => {
      if (!games.length || !games.every((g) => Array.isArray(g.players))) {
        listLocalGames();
        return;
      }
      $("my-games-list").replaceChildren(...games.map((g) => el("li", { "data-game": g.id, class: g.your_turn ? "your-turn" : "" },
        ...historyEntry(g, player.id))));
      $("my-games").hidden = false;
    })
    .catch(() => listLocalGames());
}

// One line of a player's games: "vs Omar · 12 : 30 · 5 December, 14:02 · your turn".
/**
 * @param {PlayerGame} g
 * @param {string} me the player's id
 */
function historyEntry(g, me) {
  const mine = (g.players || []).find((p) => p.player === me);
  const mySide = mine ? mine.seat % 2 : 0;
  const others = (g.players || []).filter((p) => p.player !== me)
    .map((p) => (p.bot ? seatName({ seats: g.players.map((q) => ({ ...q, name: q.bot ? null : q.name })) }, p.seat) : p.name || t("seat.open")));
  const names = others.flatMap((name, index) => (index ? [t("side.joiner"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  const scores = Array.isArray(g.scores) ? [g.scores[mySide], ...g.scores.filter((_, side) => side !== mySide)].map((s) => num(s ?? 0)).join(" : ") : "";
  const status = g.your_turn ? t("games.your_turn") : g.result ? t(`games.result.${g.result}`) : t(`games.status.${g.status}`);
  const href = g.status === "finished" ? `/replay/${encodeURIComponent(g.id)}` : `/play/${encodeURIComponent(g.id)}`;
  return [
    el("a", { href }, ...tx("games.versus", { names: el("span", {}, ...names) })),
    el("span", { class: "muted" }, ` \u00b7 ${scores}${g.updated_at ? ` \u00b7 ${dateTime(g.updated_at)}` : ""} \u00b7 `),
    el("span", { class: `game-status ${g.your_turn ? "your-turn" : ""}`, text: status }),
  ];
}

function listLocalGames() {
  /** @type {string[]} */
  const items = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (key && key.startsWith("basra:seat:")) items.push(key.slice("basra:seat:".length));
  }
  const ids = items.slice(-8).reverse();
  $("my-games-list").replaceChildren(...ids.map((id) => el("li", { "data-game": id },
    el("a", { href: `/play/${encodeURIComponent(id)}`, text: t("games.loading") }))));
  $("my-games").hidden = items.length === 0;
  for (const id of ids) {
    const seat = loadSeat(id);
    api("GET", `/games/${encodeURIComponent(id)}`, { token: seat && seat.token })
      .then((/** @type {{data: View}} */ { data }) => {
        const item = $("my-games-list").querySelector(`li[data-game="${CSS.escape(id)}"]`);
        if (item) item.replaceChildren(...gameEntry(data, id));
      })
      .catch(() => {
        const item = $("my-games-list").querySelector(`li[data-game="${CSS.escape(id)}"]`);
        if (item) item.remove();
      });
  }
}

// "vs Omar · 12 : 30 · your turn": a line of a game list, from the game's view.
/**
 * @param {View} view
 * @param {string} id
 */
export function gameEntry(view, id) {
  const you = view.you;
  const mySide = typeof you === "number" ? sideOfSeat(view, you) : 0;
  const others = (view.seats || []).filter((s) => s.seat !== you).map((s) => seatName(view, s.seat));
  const names = others.flatMap((name, index) => (index ? [t("side.joiner"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
  const scores = (view.sides || []).slice().sort((a, b) => (a.side === mySide ? -1 : b.side === mySide ? 1 : 0))
    .map((s) => num(s.score ?? 0)).join(" : ");
  const status = view.status === "active" && view.turn === you && typeof you === "number" ? t("games.your_turn")
    : t(`games.status.${view.status}`);
  return [
    el("a", { href: `/play/${encodeURIComponent(id)}` }, ...tx("games.versus", { names: el("span", {}, ...names) })),
    el("span", { class: "muted" }, ` \u00b7 ${scores} \u00b7 `),
    el("span", { class: `game-status ${view.status === "active" && view.turn === you ? "your-turn" : ""}`, text: status }),
  ];
}

export async function listOpenGames() {
  try {
    /** @type {{data: GamesPage}} */
    const { data } = await api("GET", "/games?status=waiting&limit=10");
    const games = (data && data.games) || [];
    $("open-games-list").replaceChildren(...games.filter((g) => g && g.id).map((g) => {
      // A listing's seats hold `seat`, `name`, `bot` and `player` (openapi.yaml says so in words).
      const seats = /** @type {ListedSeat[]} */ (g.seats || []);
      const names = seats.filter((s) => s.name || s.bot).map((s) => seatName({ seats }, s.seat));
      const who = names.flatMap((name, index) => (index ? [t("list.comma"), el("bdi", { text: name })] : [el("bdi", { text: name })]));
      return el("li", {}, el("a", { href: `/play/${encodeURIComponent(g.id)}` },
        ...tx("games.open", { names: el("span", {}, ...who), count: seats.length })));
    }));
    $("open-games").hidden = $("open-games-list").children.length === 0;
  } catch (err) {
    $("open-games").hidden = true; // the lobby works without the list
  }
}
