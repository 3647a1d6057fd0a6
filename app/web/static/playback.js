// Playing moves back one at a time: the view after a move, worked out from the one before with
// public facts only (the table shows each bot play before the newest view).
import { isSeated } from "./table.js";

export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

// The view after `move`, worked out from the one before (public facts only).
export function step(before, move, final) {
  const next = clone(before);
  const count = (next.seats || []).length;
  const seat = (next.seats || []).find((s) => s.seat === move.seat);
  if (seat) seat.hand_size = Math.max(0, (seat.hand_size ?? 0) - 1);
  if (isSeated(next) && move.seat === next.you) next.hand = (next.hand || []).filter((c) => c !== move.card);
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
  delete next.deadline;
  if ((next.seats || []).every((s) => !s.hand_size) && next.stock > 0) {
    // a new deal of four cards each, within the round
    for (const s of next.seats) s.hand_size = 4;
    next.stock = Math.max(0, next.stock - 4 * count);
    if (isSeated(next)) next.hand = final.round === next.round ? [...(final.hand || [])] : [];
  }
  return next;
}
