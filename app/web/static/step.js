// @ts-check
// The view after one move, worked out from the one before with public facts only, so the table
// can show each bot play before the newest view. It repeats a little of the rules (a capture
// leaves the floor, a trail joins it, a new deal of four when every hand is empty):
// tests/browser/test_step_js.py holds it to the engine, move by move, over whole games.

/** @typedef {import("../generated/basra").components["schemas"]["View"]} View */
/** @typedef {import("../generated/basra").components["schemas"]["MoveOut"]} Move */

/**
 * A deep copy of plain JSON data.
 * @template T
 * @param {T} value
 * @returns {T}
 */
export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

/**
 * The view after `move`, worked out from `before` (public facts only); `final` is the newest view,
 * whose hand is this seat's after a deal within the same round.
 * @param {View} before
 * @param {Move} move
 * @param {View} final
 * @returns {View}
 */
export function step(before, move, final) {
  const next = clone(before);
  const count = (next.seats || []).length;
  const seated = next.you !== undefined && next.you !== null;
  const seat = (next.seats || []).find((s) => s.seat === move.seat);
  if (seat) seat.hand_size = Math.max(0, (seat.hand_size ?? 0) - 1);
  if (seated && move.seat === next.you) next.hand = (next.hand || []).filter((c) => c !== move.card);
  const side = (next.sides || []).find((s) => (s.seats || []).includes(move.seat));
  if (move.captured && move.captured.length) {
    const taken = new Set(move.captured);
    next.floor = (next.floor || []).filter((c) => !taken.has(c));
    if (side) {
      side.captured = (side.captured ?? 0) + move.captured.length + 1;
      if (move.basra === "basra") side.basras = (side.basras ?? 0) + 1;
      if (move.basra === "jack_basra") side.jack_basras = (side.jack_basras ?? 0) + 1;
    }
  } else {
    next.floor = [...(next.floor || []), move.card];
  }
  next.last_move = move;
  next.turn = count ? (move.seat + 1) % count : null;
  delete next.legal_moves;
  // A step is not the newest view: without `deadline` it offers no clock and no resigning.
  delete /** @type {{deadline?: unknown}} */ (next).deadline;
  if ((next.seats || []).every((s) => !s.hand_size) && next.stock > 0) {
    // a new deal of four cards each, within the round
    for (const s of next.seats) s.hand_size = 4;
    next.stock = Math.max(0, next.stock - 4 * count);
    if (seated) next.hand = final.round === next.round ? [...(final.hand || [])] : [];
  }
  return next;
}
