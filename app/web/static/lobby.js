// @ts-check
// The lobby: a form that can set up any game POST /games accepts. Every allowed value, default
// and explanation comes from GET /rules; nothing about the rules is typed in here.
import { api, el, botLevel } from "./basra.js";
import { has, num, t } from "./i18n.js";
import { byId as $, fieldById, findById } from "./dom.js";

/** @typedef {import("./dom.js").Attr} Attr */
/** @typedef {import("../generated/basra").components["schemas"]["RuleOption"]} RuleOption */
/**
 * GET /rules. supportsRated() also reads `rated_games`, which GameSetup does not have: absent,
 * every table may be rated.
 * @typedef {import("../generated/basra").components["schemas"]["GameSetup"] & {rated_games?: boolean}} Catalog
 */
/**
 * The body of POST /games as the form builds it.
 * @typedef {{players: Record<string, unknown>[], rules?: Record<string, unknown>, public?: boolean, rated?: boolean}} GameRequest
 */

// Options with a place of their own in the form (the target and the turn clock).
const OWN_PLACE = new Set(["target_score", "turn_seconds", "max_timeouts"]);
const CLOCK_PRESETS = [15, 30, 60, 120, 300];

/**
 * The form's choices: each seat is "you", "open" or "bot:<level>".
 * @type {{catalog: Catalog | null, players: number, seats: string[], target: number | null}}
 */
const setup = { catalog: null, players: 2, seats: [], target: null };

export const sideOf = (/** @type {number} */ seat) => seat % 2; // RULES.md 1.1: seats 0 and 2 are side 0
export const teamName = (/** @type {number} */ side) => t(side === 0 ? "team.a" : "team.b");

/** GET /rules, which loadLobby() reads before anything of the form is drawn. */
function catalog() {
  if (!setup.catalog) throw new Error("the rules (GET /rules) are not loaded yet");
  return setup.catalog;
}

/** @param {unknown} value */
function words(value) {
  return String(value).replaceAll("_", " ");
}

/** @param {string | undefined} name */
function option(name) {
  return (catalog().options || []).find((o) => o.name === name) || null;
}

// ---- players and seats -------------------------------------------------------------------

/** @returns {{value: string, text: string, help?: string}[]} */
function seatChoices() {
  const bots = catalog().bots || [];
  return [
    { value: "you", text: t("setup.seat_you") },
    ...bots.map((b) => {
      const help = has(`bot.help.${b.level}`) ? t(`bot.help.${b.level}`) : b.help;
      return { value: `bot:${b.level}`, text: t("setup.seat_bot", { level: botLevel(b.level) }),
        help: b.rating ? t("setup.bot_rating", { help, rating: ratingFigure(b.rating) }) : help };
    }),
    { value: "open", text: t("setup.seat_open"), help: t("setup.seat_open_help") },
  ];
}

/** @param {number} count */
function defaultSeats(count) {
  const bots = (catalog().bots || []).map((b) => b.level);
  const level = bots.includes("greedy") ? "greedy" : bots[0];
  return Array.from({ length: count }, (_, i) => (i === 0 ? "you" : `bot:${level}`));
}

// A bot's rating as the API gives it: a number, or a rating object.
/** @param {number | {value: number}} rating */
function ratingFigure(rating) {
  const value = typeof rating === "object" && rating !== null ? rating.value : rating;
  return typeof value === "number" ? num(value, { maximumFractionDigits: 1 }) : String(value);
}

/** @param {number} seat */
function seatTitle(seat) {
  if (setup.players === 2) return t(seat === 0 ? "setup.seat_first" : "setup.seat_opponent", { n: seat + 1 });
  const role = seat === 2 ? "setup.role_partner" : seat === 0 ? "setup.role_none" : "setup.role_opponent";
  return t(role, { n: seat + 1, team: teamName(sideOf(seat)) });
}

function drawSeats() {
  const choices = seatChoices();
  $("seats").replaceChildren(...setup.seats.map((value, seat) => {
    const select = el("select", { id: `seat-${seat}`, "data-seat": seat },
      ...choices.map((c) => el("option", { value: c.value, text: c.text, selected: c.value === value })));
    select.addEventListener("change", () => chooseSeat(seat, select.value));
    const help = choices.find((c) => c.value === value)?.help || "";
    return el("label", { class: `seat-setup side-${sideOf(seat)}` },
      el("span", { class: "seat-title", text: seatTitle(seat) }), select,
      el("small", { class: "rule-help", text: help }));
  }));
  const teams = setup.players === 4;
  $("seats-hint").textContent = teams
    ? t("setup.hint_teams")
    : t("setup.hint_two");
  const open = setup.seats.includes("open");
  $("public-row").hidden = !(open && supportsPublic());
  $("rated-row").hidden = !supportsRated();
}

/**
 * @param {number} seat
 * @param {string} value
 */
function chooseSeat(seat, value) {
  if (value === "you") {
    // One browser holds one seat: "you" moves rather than doubles.
    setup.seats = setup.seats.map((v, i) => (v === "you" && i !== seat ? defaultSeats(2)[1] : v));
  }
  setup.seats[seat] = value;
  drawSeats();
  $(`seat-${seat}`).focus();
}

function drawPlayerCounts() {
  const counts = catalog().players || [2];
  $("player-counts").replaceChildren(...counts.map((count) => {
    const input = el("input", { type: "radio", name: "players", value: count, id: `players-${count}`,
      checked: count === setup.players });
    input.addEventListener("change", () => {
      setup.players = count;
      const kept = setup.seats.slice(0, count);
      setup.seats = [...kept, ...defaultSeats(count).slice(kept.length)];
      drawSeats();
    });
    return el("label", { class: "pill" }, input,
      el("span", { text: count === 4 ? t("setup.four_teams") : t("setup.players", { count }) }));
  }));
}

// ---- target score -------------------------------------------------------------------------

function drawTargets() {
  const target = catalog().target_score;
  setup.target = target.default;
  const presets = target.presets || [target.default];
  const radios = [...presets.map(String), "custom"].map((value) => {
    const input = el("input", { type: "radio", name: "target", value, id: `target-${value}`,
      checked: value === String(target.default) });
    input.addEventListener("change", () => {
      $("target-custom-row").hidden = value !== "custom";
      if (value === "custom") $("target-custom").focus();
    });
    const text = value === "custom" ? t("setup.other") : value === String(target.default)
      ? t("setup.standard_value", { value: num(Number(value)) }) : num(Number(value));
    return el("label", { class: "pill" }, input, el("span", { text }));
  });
  $("targets").replaceChildren(...radios);
  const custom = fieldById("target-custom");
  custom.min = String(target.minimum);
  custom.max = String(target.maximum);
  custom.placeholder = t("setup.range", { low: target.minimum, high: target.maximum });
}

function chosenTarget() {
  const picked = /** @type {HTMLInputElement | null} */ (document.querySelector("input[name=target]:checked"));
  const target = catalog().target_score;
  if (!picked || picked.value !== "custom") return Number(picked ? picked.value : target.default);
  const value = Number(fieldById("target-custom").value);
  if (!Number.isInteger(value) || value < target.minimum || value > target.maximum) {
    throw new Error(t("setup.bad_target", { low: target.minimum, high: target.maximum }));
  }
  return value;
}

// ---- house rules and the clock ----------------------------------------------------------------

/** @param {RuleOption} opt */
function describeDefault(opt) {
  if (opt.type === "boolean") return opt.default ? t("rules.on") : t("rules.off");
  if (opt.default === null || opt.default === undefined) return t("rules.none");
  return valueLabel(opt, opt.default);
}

// The house rules come from GET /rules; their labels and help in the page's language where the
// catalogue has them (rule.<name>.label, rule.<name>.help, rule.<name>.<value>), else as served.
/** @param {RuleOption} opt */
function ruleLabel(opt) {
  return has(`rule.${opt.name}.label`) ? t(`rule.${opt.name}.label`) : opt.label;
}

/** @param {RuleOption} opt */
function ruleHelp(opt) {
  return has(`rule.${opt.name}.help`) ? t(`rule.${opt.name}.help`) : opt.help;
}

/**
 * @param {RuleOption} opt
 * @param {unknown} value
 */
function valueLabel(opt, value) {
  return has(`rule.${opt.name}.${value}`) ? t(`rule.${opt.name}.${value}`) : typeof value === "number" ? num(value) : words(value);
}

/** @param {RuleOption} opt */
function ruleControl(opt) {
  const id = `rule-${opt.name}`;
  const help = el("small", { class: "rule-help", id: `${id}-help` },
    ruleHelp(opt), " ", el("span", { class: "rule-default", text: t("rules.standard", { value: describeDefault(opt) }) }));
  /** @type {HTMLSelectElement | HTMLInputElement} */
  let control;
  if (opt.type === "choice") {
    const values = opt.values || []; // a choice always lists them
    const select = el("select", { id, "data-rule": opt.name, "aria-describedby": `${id}-help`, disabled: values.length < 2 },
      ...values.map((value) => {
        const label = value === opt.default ? t("setup.standard_value", { value: valueLabel(opt, value) }) : valueLabel(opt, value);
        return el("option", { value, text: label, selected: value === opt.default });
      }));
    // What the chosen value does, under the list (an option's own text stays short).
    const note = el("span", { class: "value-note", "aria-live": "polite" });
    const explain = () => {
      const key = `rule.${opt.name}.${select.value}.help`;
      note.textContent = has(key) ? t(key) : (opt.value_help || {})[select.value] || "";
    };
    control = select;
    control.addEventListener("change", explain);
    explain();
    help.prepend(note);
  } else if (opt.type === "boolean") {
    control = el("input", { id, type: "checkbox", "data-rule": opt.name, "aria-describedby": `${id}-help`, checked: Boolean(opt.default) });
  } else {
    control = el("input", { id, type: "number", inputmode: "numeric", "data-rule": opt.name, "aria-describedby": `${id}-help`,
      min: opt.minimum, max: opt.maximum, value: /** @type {Attr} */ (opt.default ?? "") }); // JSON: written as text
  }
  control.addEventListener("change", markChanged);
  const wrapper = opt.type === "boolean"
    ? el("div", { class: "rule" }, el("label", { class: "check" }, control, el("span", { class: "rule-label", text: ruleLabel(opt) })), help)
    : el("div", { class: "rule" }, el("label", { class: "rule-label", for: id, text: ruleLabel(opt) }), control, help);
  wrapper.dataset.rule = opt.name;
  return wrapper;
}

/**
 * @param {RuleOption} opt
 * @param {HTMLElement} node the rule's control: an input, or a select (whose value is read alike)
 * @returns {boolean | string | number | null}
 */
function ruleValue(opt, node) {
  const control = /** @type {HTMLInputElement} */ (node);
  if (opt.type === "boolean") return control.checked;
  if (opt.type === "choice") return control.value;
  if (control.value === "" && opt.nullable) return null;
  const value = Number(control.value);
  if (!Number.isInteger(value) || (opt.minimum !== undefined && value < opt.minimum)
    || (opt.maximum !== undefined && value > opt.maximum)) {
    throw new Error(t("rules.bad_number", { label: ruleLabel(opt), low: opt.minimum, high: opt.maximum }));
  }
  return value;
}

// The options that differ from the standard rules; only those are sent.
function changedRules() {
  /** @type {Record<string, unknown>} */
  const rules = {};
  for (const opt of catalog().options || []) {
    if (OWN_PLACE.has(opt.name)) continue;
    const control = findById(`rule-${opt.name}`);
    if (!control) continue;
    const value = ruleValue(opt, control);
    if (value !== opt.default) rules[opt.name] = value;
  }
  return rules;
}

function markChanged() {
  let count = 0;
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#rule-options .rule"))) {
    const opt = option(node.dataset.rule);
    if (!opt) continue; // every rule drawn is one of the catalogue's
    let changed = false;
    try {
      changed = ruleValue(opt, $(`rule-${opt.name}`)) !== opt.default;
    } catch (err) {
      changed = true;
    }
    node.classList.toggle("changed", changed);
    if (changed) count += 1;
  }
  $("rules-changed").textContent = count ? t("rules.changed", { count }) : t("rules.standard_all");
}

function drawRules() {
  const options = (catalog().options || []).filter((o) => !OWN_PLACE.has(o.name));
  $("rule-options").replaceChildren(...options.map(ruleControl));
  markChanged();
}

function drawClock() {
  const seconds = option("turn_seconds");
  $("clock-setup").hidden = !seconds;
  if (!seconds) return;
  const low = seconds.minimum ?? 1;
  const high = seconds.maximum ?? 3600;
  const presets = CLOCK_PRESETS.filter((s) => s >= low && s <= high);
  const select = el("select", { id: "clock-seconds", "aria-describedby": "clock-help" },
    el("option", { value: "", text: t("clock.none"), selected: seconds.default === null }),
    ...presets.map((s) => el("option", { value: s, text: s < 60 ? t("clock.seconds_a_move", { count: s }) : t("clock.minutes_a_move", { count: s / 60 }),
      selected: s === seconds.default })));
  const timeouts = option("max_timeouts");
  const rows = [
    el("label", { class: "field", for: "clock-seconds", text: ruleLabel(seconds) }), select,
    el("small", { class: "rule-help", id: "clock-help", text: ruleHelp(seconds) }),
  ];
  if (timeouts) {
    const input = el("input", { id: "clock-timeouts", type: "number", inputmode: "numeric",
      min: timeouts.minimum, max: timeouts.maximum, value: /** @type {Attr} */ (timeouts.default), "aria-describedby": "timeouts-help" });
    const box = el("div", { id: "clock-timeouts-box", hidden: !select.value },
      el("label", { class: "field", for: "clock-timeouts", text: ruleLabel(timeouts) }), input,
      el("small", { class: "rule-help", id: "timeouts-help", text: `${ruleHelp(timeouts)} ${t("rules.standard", { value: num(timeouts.default) })}` }));
    select.addEventListener("change", () => { box.hidden = !select.value; });
    rows.push(box);
  }
  $("clock-options").replaceChildren(...rows);
}

function clockRules() {
  const seconds = option("turn_seconds");
  if (!seconds || !findById("clock-seconds")) return {};
  const value = fieldById("clock-seconds").value;
  if (!value) return {};
  /** @type {Record<string, unknown>} */
  const rules = { turn_seconds: Number(value) };
  const timeouts = option("max_timeouts");
  const timeoutsField = findById("clock-timeouts");
  if (timeouts && timeoutsField) {
    const count = ruleValue(timeouts, timeoutsField);
    if (count !== timeouts.default) rules.max_timeouts = count;
  }
  return rules;
}

// Invitations (API.md 15): GET /rules says whether POST /games takes "public".
function supportsPublic() {
  return Boolean(setup.catalog && setup.catalog.public_games);
}

// Rated games (API.md 20): every seat the lobby offers is a player's (bots are players, an open
// seat of a rated game only a player may take), so any table can be rated.
function supportsRated() {
  return Boolean(setup.catalog && setup.catalog.rated_games !== false);
}

// ---- the request ------------------------------------------------------------------------------

// ``asPlayer``: the "you" seat is this browser's player (API.md 18), else a name of its own.
/**
 * @param {string} name
 * @param {string} seed
 * @returns {GameRequest}
 */
export function gameRequest(name, seed, asPlayer = false) {
  const players = setup.seats.map((value) => {
    if (value === "you" && asPlayer) return seed ? { player: "me", seed } : { player: "me" };
    if (value === "you") return seed ? { name, seed } : { name };
    if (value === "open") return { open: true };
    return { bot: value.slice("bot:".length) };
  });
  /** @type {Record<string, unknown>} */
  const rules = { ...changedRules(), ...clockRules() };
  const target = chosenTarget();
  if (target !== catalog().target_score.default) rules.target_score = target;
  /** @type {GameRequest} */
  const body = { players };
  if (Object.keys(rules).length) body.rules = rules;
  if (setup.seats.includes("open") && supportsPublic() && fieldById("public").checked) body.public = true;
  if (asPlayer && supportsRated() && fieldById("rated").checked) body.rated = true;
  return body;
}

export async function loadLobby() {
  if (!setup.catalog) {
    /** @type {{data: Catalog}} */
    const { data } = await api("GET", "/rules");
    setup.catalog = data;
    setup.players = (data.players || [2])[0];
    setup.seats = defaultSeats(setup.players);
    drawPlayerCounts();
    drawSeats();
    drawTargets();
    drawClock();
    drawRules();
    $("rules-reset").addEventListener("click", () => {
      drawRules();
      /** @type {HTMLElement | null} */ ($("rule-options").querySelector("select, input"))?.focus();
    });
  }
  /** @type {HTMLButtonElement} */ ($("start")).disabled = false;
}
