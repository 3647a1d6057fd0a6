// @ts-check
// The turn clock under the table and beside the seat to move: a countdown, or in a game without a
// turn clock the time the seat to move forfeits if it stays idle.
import { el, seatName } from "./basra.js";
import { dateTime, nm, num, t, tx } from "./i18n.js";
import { yourTurn } from "./table.js";
import { byId as $ } from "./dom.js";

/** @typedef {import("./game_state.js").View} View */

// A turn clock counts down in minutes and seconds; a game without one has only the idle limit
// (a day by default), told as the time the seat to move forfeits.
/** @param {string} deadline */
export function clockText(deadline) {
  const left = Math.max(0, Date.parse(deadline) - Date.now());
  const seconds = Math.ceil(left / 1000);
  const two = (/** @type {number} */ n) => num(n, { minimumIntegerDigits: 2 });
  if (seconds >= 3600) return { seconds, text: t("clock.forfeit_at", { time: dateTime(deadline) }), idle: true };
  return { seconds, text: `${num(Math.floor(seconds / 60))}:${two(seconds % 60)}`, idle: false };
}

/** @param {View | null} view what is on screen */
export function tickClocks(view) {
  const clock = $("clock");
  // The clock shows only while a game is under way, when a seat is always to play.
  if (!clock.hidden && clock.dataset.deadline && view && view.turn !== null) {
    const { seconds, text, idle } = clockText(clock.dataset.deadline);
    let whose;
    if (idle) whose = yourTurn(view) ? [t("clock.you_idle")] : tx("clock.other_idle", { who: nm(seatName(view, view.turn)) });
    else whose = yourTurn(view) ? [t("clock.yours")] : tx("clock.other", { who: nm(seatName(view, view.turn)) });
    clock.replaceChildren(...whose, " ", el("span", { class: "clock-time", text }));
    clock.dataset.seconds = String(seconds);
    clock.dataset.idle = String(idle);
    clock.classList.toggle("low", !idle && seconds <= 10);
  }
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".seat-clock[data-deadline]"))) {
    const { seconds, text, idle } = clockText(/** @type {string} */ (node.dataset.deadline)); // the selector's
    node.textContent = idle ? "" : ` \u00b7 ${text}`;
    node.classList.toggle("low", !idle && seconds <= 10);
  }
}
