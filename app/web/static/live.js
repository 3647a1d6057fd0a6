// @ts-check
// Keeping a game up to date: the public stream (GET /games/{id}/stream, Server-Sent Events) when
// the server has it, else polling. Either way the caller is told "something changed" and
// refreshes its own view with If-None-Match; the stream also hands over each move record.
import { ApiError } from "./basra.js";

/** @typedef {import("../generated/basra").components["schemas"]} Schemas */
/**
 * A record of the stream: its event and its data (null where the JSON could not be read).
 * @typedef {{event: "move", data: Schemas["MoveRecord"] | null}
 *   | {event: "timeout", data: Schemas["TimeoutRecord"] | null}
 *   | {event: "joined" | "dealt" | "round" | "resigned" | "over", data: unknown}} StreamRecord
 */
/** @typedef {"connecting" | "stream" | "polling"} Mode */
/**
 * @typedef {object} LiveOptions
 * @property {(records: StreamRecord[]) => Promise<void> | void} onChange
 * @property {(mode: Mode) => void} [onMode]
 * @property {number} [version] the version the caller has seen
 */

/** @type {StreamRecord["event"][]} */
const RECORDS = ["joined", "dealt", "move", "round", "timeout", "resigned", "over"];
const POLL_MS = 1000;
const SAFETY_POLL_MS = 15000; // with the stream open, a rare poll still catches anything missed
const GIVE_UP_AFTER = 2; // stream failures before it ever opened: the server has no stream

export class Live {
  // onChange(records): records is a list of {event, data} (empty for a poll tick).
  /**
   * @param {string} gameId
   * @param {LiveOptions} options
   */
  constructor(gameId, { onChange, onMode, version }) {
    this.gameId = gameId;
    this.onChange = onChange;
    this.onMode = onMode || (() => {});
    this.version = version ?? 0;
    /** @type {EventSource | null} */
    this.source = null;
    this.failures = 0;
    this.opened = false;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {StreamRecord[]} */
    this.pending = [];
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.flushTimer = undefined;
    /** @type {Mode} */
    this.mode = "connecting";
    if (typeof EventSource === "function") this.connect();
    else this.setMode("polling");
    this.schedulePoll(POLL_MS);
  }

  /** @param {Mode} mode */
  setMode(mode) {
    if (this.mode === mode) return;
    this.mode = mode;
    this.onMode(mode);
  }

  /** @param {number} version */
  seen(version) {
    if (typeof version === "number" && version > this.version) this.version = version;
  }

  connect() {
    if (this.stopped) return;
    const url = `/games/${encodeURIComponent(this.gameId)}/stream?after=${this.version}`;
    const source = new EventSource(url);
    this.source = source;
    source.onopen = () => {
      this.opened = true;
      this.failures = 0;
      this.setMode("stream");
    };
    source.onerror = () => {
      source.close();
      if (this.source !== source || this.stopped) return;
      this.source = null;
      this.failures += 1;
      this.setMode("polling");
      if (!this.opened && this.failures >= GIVE_UP_AFTER) return; // no stream here: poll
      setTimeout(() => this.connect(), Math.min(10000, 500 * 2 ** this.failures));
    };
    for (const event of RECORDS) {
      source.addEventListener(event, (message) => this.record(event, message));
    }
  }

  /**
   * @param {StreamRecord["event"]} event
   * @param {MessageEvent<string>} message
   */
  record(event, message) {
    /** @type {unknown} */
    let data = null;
    try {
      data = JSON.parse(message.data);
    } catch (err) {
      data = null;
    }
    const id = Number(message.lastEventId);
    if (Number.isFinite(id)) this.seen(id);
    // The server's JSON has the shape its event names (openapi.yaml's StreamEvent).
    this.pending.push(/** @type {StreamRecord} */ ({ event, data }));
    if (event === "over" && this.source) {
      this.source.close(); // the server ends the stream after "over"; do not reconnect
      this.source = null;
      this.stopped = true;
    }
    // Records of one commit arrive together: hand them over as one batch.
    clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => this.flush(), 40);
  }

  flush() {
    const records = this.pending;
    this.pending = [];
    Promise.resolve(this.onChange(records)).catch(() => {}); // the caller shows its own errors
  }

  /** @param {number} delay */
  schedulePoll(delay) {
    clearTimeout(this.timer);
    if (this.stopped && !this.source) {
      // after "over", one last look is all that is needed
      return;
    }
    this.timer = setTimeout(() => this.tick(), delay);
  }

  async tick() {
    const streaming = this.mode === "stream";
    let delay = streaming ? SAFETY_POLL_MS : POLL_MS;
    try {
      await this.onChange([]);
    } catch (err) {
      delay = err instanceof ApiError && err.status === 429 ? Math.max(POLL_MS, (err.retryAfter || 2) * 1000) : POLL_MS * 3;
    }
    this.schedulePoll(this.mode === "stream" ? SAFETY_POLL_MS : delay);
  }

  // The game ended (or the page leaves it): no more requests.
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.flushTimer);
    if (this.source) this.source.close();
    this.source = null;
  }
}
