// @ts-check
// Sound effects made with WebAudio (no recorded files): a soft tick for a card, a rising pair for a
// capture, a chord for a basra, two notes for "your turn". The switch is remembered; it starts
// off where the system asks for reduced motion.
import { t } from "./i18n.js";

/** @typedef {import("../generated/basra").components["schemas"]["MoveOut"]} Move */

const KEY = "basra:sound";
/** @type {AudioContext | null} */
let context = null;
/** @type {HTMLElement | null} */
let button = null;

function enabled() {
  const stored = localStorage.getItem(KEY);
  if (stored !== null) return stored === "on";
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function audio() {
  if (!enabled() || typeof AudioContext !== "function") return null;
  if (!context) context = new AudioContext();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/**
 * @param {number} frequency
 * @param {number} start seconds from now
 * @param {number} length seconds
 */
function tone(frequency, start, length, volume = 0.08) {
  const ctx = audio();
  if (!ctx) return;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  const at = ctx.currentTime + start;
  osc.type = "triangle";
  osc.frequency.setValueAtTime(frequency, at);
  gain.gain.setValueAtTime(0, at);
  gain.gain.linearRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function draw() {
  if (!button) return;
  const on = enabled();
  button.textContent = on ? "\u{1F50A}" : "\u{1F507}";
  button.setAttribute("aria-pressed", String(on));
  button.setAttribute("aria-label", t(on ? "sound.on" : "sound.off"));
  button.title = t(on ? "sound.on" : "sound.off");
}

export const sounds = {
  /** @param {HTMLElement | null} node the switch */
  setup(node) {
    button = node;
    if (!button) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      localStorage.setItem(KEY, enabled() ? "off" : "on");
      draw();
    });
    draw();
  },
  enabled,
  /** @param {Move | null | undefined} move */
  play(move) {
    if (!move) return;
    if (move.basra) {
      [523, 659, 784].forEach((f, i) => tone(f, i * 0.07, 0.35, 0.07));
    } else if (move.captured && move.captured.length) {
      tone(440, 0, 0.12);
      tone(587, 0.08, 0.16);
    } else {
      tone(330, 0, 0.08, 0.05);
    }
  },
  turn() {
    tone(659, 0, 0.15, 0.06);
    tone(880, 0.14, 0.2, 0.06);
  },
};
