// The page: talks only to the JSON API under /api (see /docs). No framework, nothing from the network.
"use strict";

// ---------------------------------------------------------------------------------------------
// Strings and small helpers
//
// The page has no sentences of its own: GET /api/strings sends them in the player's language
// (the server picks it: ?lang=, then the "lang" cookie the switch sets, then Accept-Language),
// and the same language comes back in every verdict and error of the API.

let STRINGS = {};
let LANGUAGE = "en";
const LANG_COOKIE = "lang";

function t(key, params) {
  let text = key in STRINGS ? STRINGS[key] : key;
  for (const [name, value] of Object.entries(params || {})) text = text.split(`{${name}}`).join(String(value));
  return text;
}

// data-i18n: the text; data-i18n-aria / -placeholder: those attributes.
function applyStrings(root) {
  root.querySelectorAll("[data-i18n]").forEach((node) => { node.textContent = t(node.dataset.i18n); });
  root.querySelectorAll("[data-i18n-aria]").forEach((node) => node.setAttribute("aria-label", t(node.dataset.i18nAria)));
  root.querySelectorAll("[data-i18n-placeholder]").forEach((node) => { node.placeholder = t(node.dataset.i18nPlaceholder); });
}

async function loadStrings(lang) {
  const response = await fetch("/api/strings" + (lang ? "?lang=" + encodeURIComponent(lang) : ""),
    { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  const data = await response.json();
  STRINGS = data.strings;
  LANGUAGE = data.language;
  document.documentElement.lang = data.tag;
  const select = $("#lang");
  select.replaceChildren(...data.languages.map((l) => el("option", { value: l.code, lang: l.tag, text: l.name })));
  select.value = LANGUAGE;
  applyStrings(document);
}

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const store = {
  get(key, fallback = null) {
    try { const v = localStorage.getItem("rk." + key); return v === null ? fallback : JSON.parse(v); } catch { return fallback; }
  },
  set(key, value) {
    try { value === null ? localStorage.removeItem("rk." + key) : localStorage.setItem("rk." + key, JSON.stringify(value)); } catch { /* private mode */ }
  },
};

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body instanceof FormData) options.body = body;
  else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch {
    throw new ApiError(t("network_error"), 0);
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(data.detail || `${response.status} ${response.statusText}`, response.status);
  return data;
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert", text: error.message || String(error) }));
}

// A result remembers how it was made (out.redo), so that a change of language makes it again in
// the new language from the same request, whatever the fields hold by then. Only requests that
// change nothing on the server are remembered this way.
async function show(out, build) {
  out.redo = build;
  try {
    out.replaceChildren(...[await build()].flat().filter(Boolean));
  } catch (error) { showError(out, error); }
}

function busyButton(button, promise) {
  button.disabled = true;
  button.classList.add("working");
  return promise.finally(() => { button.disabled = false; button.classList.remove("working"); });
}

// ---------------------------------------------------------------------------------------------
// Tiles

function tile(code, extra = "") {
  const colour = code === "J" ? "J" : code === "?" ? "Q" : code[0];
  const face = code === "J" ? "☺" : code === "?" ? "?" : code.slice(1);
  return el("span", { class: `tile c-${colour} ${extra}`.trim(), title: code }, face);
}

// A translated sentence with elements in place of its {name} placeholders (word order differs).
function withNodes(text, nodes) {
  return text.split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const name = part.startsWith("{") ? part.slice(1, -1) : null;
    return name && nodes[name] ? nodes[name] : part;
  });
}

function tiles(codes, extra = "") {
  return el("span", { class: "tiles" }, (codes || []).map((c) => tile(c, extra)));
}

function verdictBanner(ok, text) {
  return el("p", { class: ok ? "banner ok" : "banner bad" }, el("span", { class: "mark", text: ok ? "✓" : "✗" }), text);
}

function setLine(set, index) {
  const jokers = (set.jokers || []).length ? el("span", { class: "muted" }, " J = " + set.jokers.join(", ")) : null;
  return el("li", { class: set.valid ? "set ok" : "set bad" },
    el("div", { class: "set-head" }, el("span", { class: "set-no", text: t("set_n", { n: index + 1 }) }), tiles(set.tiles, "small")),
    el("div", { class: "set-words" }, set.summary || set.problem || "", jokers));
}

function tableVerdict(verdict) {
  const box = el("div", { class: "verdict" });
  box.append(verdictBanner(verdict.ok, verdict.summary));
  // Problems first: a player looks for what is wrong; the numbers stay those of the table.
  const order = verdict.sets.map((set, i) => i).sort((a, b) => verdict.sets[a].valid - verdict.sets[b].valid || a - b);
  if (order.length) box.append(el("ol", { class: "sets" }, order.map((i) => setLine(verdict.sets[i], i))));
  if (verdict.loose && verdict.loose.length) box.append(el("p", { class: "loose" }, el("strong", { text: t("loose") }), " ", tiles(verdict.loose)));
  const others = verdict.violations.filter((v) => !(v.sets || []).length && v.code !== "loose_tile");
  if (others.length) box.append(el("ul", { class: "problems" }, others.map((v) => el("li", { text: v.message }))));
  // The same tiles laid as valid sets (the summary says so in words): what the table could be.
  if (verdict.rearranged && verdict.rearranged.length) {
    box.append(el("p", { class: "rearranged" }, el("strong", { text: t("rearranged") })),
      el("ol", { class: "sets plain" }, verdict.rearranged.map((s) => el("li", {}, tiles(s, "small")))));
  }
  return box;
}

// ---------------------------------------------------------------------------------------------
// Rules in force: the open match's, or the classic preset

const RULE_FIELDS = ["name", "opening_minimum", "jokers_in_opening", "joker_from_table_tile", "timeout_penalty",
  "timeout_draw", "turn_seconds", "match_scoring", "target_points", "joker_rack_penalty"];
let currentMatch = null;

function currentRules() {
  if (!currentMatch) return { name: "classic" };
  const rules = {};
  for (const key of RULE_FIELDS) if (key in currentMatch.rules) rules[key] = currentMatch.rules[key];
  return rules;
}

// ---------------------------------------------------------------------------------------------
// Photo slots: camera button, gallery, live camera; the reading with its overlay; corrections

const LIVE_OK = !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
let serverInfo = { models_loaded: true };

function setupSlot(slot) {
  slot.append(document.getElementById("slot-template").content.cloneNode(true));
  applyStrings(slot);
  const onFile = (event) => {
    const file = event.target.files && event.target.files[0];
    event.target.value = "";  // the same photo chosen twice still fires
    if (file) handlePhoto(slot, file);
  };
  $(".file-camera", slot).addEventListener("change", onFile);
  $(".file-pick", slot).addEventListener("change", onFile);
  // A table photo may show a rack beside the sets; the player can say there is none (issue 15).
  const noRack = $(".no-rack", slot);
  $(".no-rack-option", slot).hidden = slot.dataset.mode !== "table";
  noRack.addEventListener("change", () => {
    if (slot.file) { slot.corrected = false; readSlot(slot, true); }
  });
  const live = $(".live", slot);
  if (LIVE_OK) {
    live.addEventListener("click", () => openLive(slot, (file) => handlePhoto(slot, file)));
  } else {
    live.disabled = true;
    const note = $(".live-note", slot);
    note.dataset.i18n = "live_unavailable";
    note.textContent = t("live_unavailable");
    note.hidden = false;
  }
}

function slotTarget(slot) {
  return slot.dataset.target ? document.getElementById(slot.dataset.target) : null;
}

async function handlePhoto(slot, file) {
  const viewer = $(".viewer", slot);
  if (slot.objectUrl) URL.revokeObjectURL(slot.objectUrl);
  slot.objectUrl = URL.createObjectURL(file);
  slot.file = file;
  slot.corrected = false;
  slot.reading = null;
  slot.doubts = [];
  slot.showAllDoubts = false;
  slot.offer = null;
  $("img", viewer).src = slot.objectUrl;
  $("svg", viewer).replaceChildren();
  viewer.hidden = false;
  $(".slot-result", slot).replaceChildren();
  await readSlot(slot, true);
}

// The doubts of a photo, kept from its first reading until the player settles each one (picks a
// tile for it): a correction is judged anew by the server, which has no doubts about tiles the
// player confirmed, but the others still stand. A doubt follows its tile by box, since removing a
// box ("not a tile") renumbers the reading's tiles; its number stays the "Tile N" of its sentence.
function keepDoubts(slot, doubts) {
  slot.doubts = doubts.map((d) => {
    const boxes = slot.reading.mode === "dice"
      ? (d.dice || []).map((i) => slot.reading.tiles[i] && slot.reading.tiles[i].box).filter(Boolean)
      : (Number.isInteger(d.index) && slot.reading.tiles[d.index] ? [slot.reading.tiles[d.index].box] : []);
    const number = slot.reading.mode === "dice" ? ((d.dice || [])[0] ?? -1) + 1 : d.number;
    return { message: d.message || "", box: boxes[0] ? boxes[0].join(",") : null, number: number > 0 ? number : null,
      changes: !!d.changes_verdict };
  });
}

// The unsettled doubts with the index of their tile in the current reading (null: no tile).
function openDoubts(slot) {
  const where = new Map((slot.reading ? slot.reading.tiles : []).map((item, i) => [item.box.join(","), i]));
  return (slot.doubts || []).map((d) => ({ ...d, index: d.box !== null && where.has(d.box) ? where.get(d.box) : null }));
}

function settleDoubt(slot, index) {
  const box = slot.reading.tiles[index].box.join(",");
  slot.doubts = (slot.doubts || []).filter((d) => d.box !== box);
}

// Send the slot's photo to the reader and show what it read. ``fill``: also write the reading
// into the slot's field and the dice result (false when only the language changed: what the
// player typed since stays).
async function readSlot(slot, fill) {
  const viewer = $(".viewer", slot);
  const result = $(".slot-result", slot);
  $(".busy", viewer).hidden = false;
  const form = new FormData();
  form.append("photo", slot.file, slot.file.name || "photo.jpg");
  try {
    if (slot.dataset.mode === "dice") {
      const data = await api("POST", "/api/dice/read", form);
      if (!fill && slot.corrected) {
        // Only the language changed after corrections: keep the faces the player set.
        const said = new Map(data.doubts.filter((d) => (d.dice || []).length && data.dice[d.dice[0]])
          .map((d) => [data.dice[d.dice[0]].box.join(","), d.message]));
        slot.doubts.forEach((d) => { if (said.has(d.box)) d.message = said.get(d.box); });
        renderDice(slot, null, false);
        return;
      }
      slot.reading = {
        image: data.image, mode: "dice", rack: [], message: data.message, ok: !!data.best,
        tiles: data.dice.map((d) => ({ tile: d.tile, box: d.box, set: 0 })),
        verdict: { sets: [{ valid: !!data.best }] },
      };
      keepDoubts(slot, data.doubts);
      renderDice(slot, fill ? data.best : null, fill);
    } else {
      form.append("mode", slot.dataset.mode);
      if (slot.dataset.mode === "table") form.append("no_rack", $(".no-rack", slot).checked ? "true" : "false");
      form.append("preset", currentRules().name || "classic");
      const profile = chosenProfile();  // the player's taught tiles, if chosen on the "My tiles" screen
      if (profile) form.append("profile", profile);
      const reading = await api("POST", "/api/photo/read", form);
      slot.readProfile = reading.profile || null;
      if (!fill && slot.corrected) {
        // Only the language changed after corrections: keep the player's tiles, take the sentences.
        const said = new Map(reading.doubts.map((d) => [d.index !== undefined && reading.tiles[d.index] ? reading.tiles[d.index].box.join(",") : "", d.message]));
        slot.doubts.forEach((d) => { if (said.has(d.box)) d.message = said.get(d.box); });
        return;
      }
      slot.reading = reading;
      keepDoubts(slot, reading.doubts);
      renderReading(slot, fill);
    }
  } catch (error) {
    showError(result, error);
  } finally {
    $(".busy", viewer).hidden = true;
  }
}

// The dice photo: the overlay, the faces in their field and the best arrangement (``best``: the
// one the server already sent; null asks for it again from the faces as they stand).
function renderDice(slot, best, fill) {
  const reading = slot.reading;
  const result = $(".slot-result", slot);
  const faces = reading.tiles.map((item) => item.tile).join(" ");
  if (fill) slotTarget(slot).value = faces;
  drawOverlay(slot);
  const parts = [];
  if (!reading.ok) parts.push(el("p", { class: "banner bad", text: reading.message || t("no_tiles") }));
  parts.push(...doubtList(slot));
  if (reading.tiles.length) parts.push(el("p", { class: "muted small", text: t("tap_to_fix") }));
  result.replaceChildren(...parts);
  if (fill && (best || (slot.corrected && reading.ok))) {
    let first = best;  // a later redo (a change of language) arranges the same faces anew
    show($("#dice-result"), async () => {
      const shown = first || await api("POST", "/api/dice/best", { faces });
      first = null;
      return diceView(shown);
    });
  }
}

// The slot's reading again in the current language: the photo read anew, or - once the player
// corrected tiles by hand - the corrected tiles judged anew (the corrections stay).
async function translateSlot(slot) {
  if (!slot.reading || !slot.file) return;
  if (slot.corrected && slot.reading.mode !== "dice") {
    await readSlot(slot, false);  // the doubts' sentences in the new language
    await correctSlot(slot, slot.reading.tiles.map((item) => item.tile), false);
  } else await readSlot(slot, false);
}

function tileStatus(reading, index) {
  const item = reading.tiles[index];
  if (item.tile === "?") return "doubt";
  if ((reading.rack || []).includes(index)) return "rack";
  if (item.set === null || item.set === undefined) return "loose";
  const verdict = reading.verdict.sets[item.set];
  return verdict && verdict.valid ? "ok" : "bad";
}

// Where each tile's label goes: above its box if that space is free, else below, else a line
// further out; labels never cover one another on a dense rack (issue 15). Boxes are placed left to
// right; ``widths`` and ``height`` are the labels' sizes in image pixels; ``obstacles`` are spots
// already taken (the doubts' number badges).
function placeLabels(boxes, widths, height, image, obstacles = []) {
  const placed = [...obstacles];
  const overlap = (a, b) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x))
    * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const order = boxes.map((b, i) => i).sort((i, j) => boxes[i][0] - boxes[j][0] || boxes[i][1] - boxes[j][1]);
  const out = new Array(boxes.length);
  for (const i of order) {
    const [x1, y1, x2, y2] = boxes[i];
    const w = widths[i];
    const clampX = (x) => Math.min(Math.max(0, x), Math.max(0, image.width - w));
    const clampY = (y) => Math.min(Math.max(0, y), Math.max(0, image.height - height));
    const xs = [(x1 + x2) / 2 - w / 2, x1, x2 - w, x1 - w / 2, x2 - w / 2, x1 - w, x2].map(clampX);
    const ys = [y1 - height, y2, y1, y2 - height, y1 - 2 * height, y2 + height, (y1 + y2 - height) / 2,
      y1 - 3 * height, y2 + 2 * height].map(clampY);
    let best = null;
    let bestCost = Infinity;
    search: for (const y of ys) {
      for (const x of xs) {
        const spot = { x, y, w, h: height };
        const cost = placed.reduce((sum, other) => sum + overlap(spot, other), 0);
        if (cost < bestCost) { best = spot; bestCost = cost; }
        if (cost === 0) break search;
      }
    }
    placed.push(best);
    out[i] = best;
  }
  return out;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
  return node;
}

function drawOverlay(slot) {
  const reading = slot.reading;
  const svg = $("svg", slot);
  const { width, height } = reading.image;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  // Labels are sized to the tiles (a dense rack gets small ones), but stay readable on the screen:
  // at least 10 CSS pixels once the photo is scaled to the page's width.
  const shown = svg.clientWidth || $("img", slot).clientWidth || width;
  const sides = reading.tiles.map(({ box }) => Math.min(box[2] - box[0], box[3] - box[1])).sort((a, b) => a - b);
  const median = sides.length ? sides[Math.floor(sides.length / 2)] : width / 20;
  const font = Math.max(10 * width / shown, Math.min(Math.max(width, height) / 45, median * 0.5));
  const stroke = Math.max(2, Math.round(Math.max(width, height) / 400));
  const doubts = openDoubts(slot);
  const numbers = new Map(doubts.filter((d) => d.index !== null).map((d) => [d.index, d.number]));
  const widths = reading.tiles.map((item) => font * (item.tile.length * 0.62 + 0.5));
  const r = font * 0.75;  // a doubt's number badge: a circle on its tile's top right corner
  const badgeSpots = [...numbers.keys()].map((i) => ({ x: reading.tiles[i].box[2] - r, y: reading.tiles[i].box[1] - r, w: 2 * r, h: 2 * r }));
  const spots = placeLabels(reading.tiles.map((item) => item.box), widths, font * 1.1, reading.image, badgeSpots);
  svg.replaceChildren();
  const badges = [];
  reading.tiles.forEach((item, index) => {
    const [x1, y1, x2, y2] = item.box;
    const group = svgEl("g", { class: `tilebox ${tileStatus(reading, index)}${numbers.has(index) ? " doubtful" : ""}`,
      "data-index": index, role: "button", "aria-label": item.tile });
    const spot = spots[index];
    group.append(
      svgEl("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: stroke * 2, "stroke-width": stroke, class: "box" }),
      svgEl("rect", { x: spot.x, y: spot.y, width: spot.w, height: spot.h, rx: font * 0.2, class: "label-bg" }));
    const text = svgEl("text", { x: spot.x + font * 0.25, y: spot.y + font * 0.9, "font-size": font, class: "label" });
    text.textContent = item.tile;
    group.append(text);
    group.addEventListener("click", () => openPicker(slot, index));
    svg.append(group);
    const number = numbers.get(index);
    if (number) {
      // The doubt's number ("Tile 30"), in a badge on the tile's corner, above every label.
      const badge = svgEl("g", { class: "doubt-no", "data-number": number, "data-index": index });
      badge.append(svgEl("circle", { cx: x2, cy: y1, r }),
        Object.assign(svgEl("text", { x: x2, y: y1 + font * 0.35, "font-size": font, "text-anchor": "middle" }), { textContent: String(number) }));
      badge.addEventListener("click", () => openPicker(slot, index));
      badges.push(badge);
    }
  });
  svg.append(...badges);
}

const DOUBTS_SHOWN = 5;  // a hard photo lists the most important ones, the rest behind "show all"

function doubtList(slot) {
  const doubts = openDoubts(slot);
  if (!doubts.length) return [];
  const visible = slot.showAllDoubts ? doubts : doubts.slice(0, DOUBTS_SHOWN);
  const items = visible.map((d) => {
    const number = d.number ? el("span", { class: "doubt-no", text: String(d.number) }) : null;
    const flag = d.changes ? el("span", { class: "doubt-flag", text: t("doubt_changes") }) : null;
    return el("li", { class: d.changes ? "changes" : "" }, d.index !== null
      ? el("button", { class: "link", onclick: () => openPicker(slot, d.index) }, number, flag, d.message)
      : el("span", {}, number, flag, d.message));
  });
  const more = doubts.length > visible.length
    ? el("button", { class: "secondary more-doubts", text: t("doubts_show_all", { count: doubts.length }),
      onclick: () => { slot.showAllDoubts = true; rerender(slot); } })
    : null;
  return [el("div", { class: "doubts" }, el("strong", { text: t("doubts_n", { count: doubts.length }) }), el("ul", {}, items), more)];
}

function rerender(slot) {
  if (slot.reading.mode === "dice") renderDice(slot, null, false);
  else renderReading(slot, false);
}

function renderReading(slot, fill = true) {
  const reading = slot.reading;
  drawOverlay(slot);
  const target = slotTarget(slot);
  if (target && fill) target.value = reading.mode === "rack" ? reading.rack_tiles : reading.table.join(" | ");
  // The loose tiles go to their own field: the typed checks then judge every tile the photo holds.
  const looseTarget = slot.dataset.looseTarget ? document.getElementById(slot.dataset.looseTarget) : null;
  if (looseTarget && fill) looseTarget.value = reading.loose_tiles || "";
  const result = $(".slot-result", slot);
  const parts = [];
  if (!reading.tiles.length) {
    parts.push(el("p", { class: "banner bad", text: t("no_tiles") }));
  } else if (reading.mode === "rack") {
    const codes = reading.rack.map((i) => reading.tiles[i].tile);
    parts.push(el("p", {}, el("strong", { text: t("rack_read") }), " ", tiles(codes)));
    parts.push(el("p", { class: "muted", text: t("rack_points", { points: reading.rack_points }) }));
  } else {
    parts.push(tableVerdict(reading.verdict));
    const rackCodes = (reading.rack || []).map((i) => reading.tiles[i].tile);
    if (rackCodes.length) parts.push(el("p", {}, el("strong", { text: t("rack_read") }), " ", tiles(rackCodes)));
    // Why those tiles were taken as a rack (and how to say there is none).
    if (reading.rack_note) parts.push(el("p", { class: "muted rack-note", text: reading.rack_note }));
    if (reading.photo_note) parts.push(el("p", { class: "photo-note", text: reading.photo_note }));
  }
  parts.push(...doubtList(slot));
  if (reading.tiles.length) parts.push(el("p", { class: "muted small", text: t("tap_to_fix") }));
  if (slot.readProfile) parts.push(el("p", { class: "muted small read-with", text: t("read_with", { name: slot.readProfile }) }));
  if (slot.offer) parts.push(offerView(slot));
  result.replaceChildren(...parts);
  slot.dispatchEvent(new CustomEvent("reading", { bubbles: true }));
}

// The picker: 4 colours x 13 numbers, the joker, "unreadable".
let pickerState = null;

function buildPicker() {
  const grid = $("#picker-grid");
  for (const colour of ["K", "B", "O", "R"]) {
    for (let n = 1; n <= 13; n++) {
      const code = colour + n;
      grid.append(el("button", { class: "pick", "data-code": code, onclick: () => pickTile(code) }, tile(code)));
    }
    grid.append(el("span", { class: "pick-gap" }));  // each colour starts a new row (2 rows of 7)
  }
  grid.append(el("button", { class: "pick", "data-code": "J", onclick: () => pickTile("J") }, tile("J")));
  grid.append(el("button", { class: "pick", "data-code": "?", onclick: () => pickTile("?") }, tile("?")));
  $("#picker-remove").addEventListener("click", () => pickTile("-"));
  $("#picker-cancel").addEventListener("click", closePicker);
  $("#picker").addEventListener("click", (event) => { if (event.target.id === "picker") closePicker(); });
}

// The tile being corrected, cut out of the photo and enlarged in the picker's title.
function tilePreview(slot, index) {
  const img = $("img", slot);
  const [x1, y1, x2, y2] = slot.reading.tiles[index].box;
  const scale = img.naturalWidth / slot.reading.image.width || 1;
  const pad = 0.15 * Math.max(x2 - x1, y2 - y1);
  const sx = Math.max(0, (x1 - pad) * scale);
  const sy = Math.max(0, (y1 - pad) * scale);
  const sw = Math.min(img.naturalWidth - sx, (x2 - x1 + 2 * pad) * scale);
  const sh = Math.min(img.naturalHeight - sy, (y2 - y1 + 2 * pad) * scale);
  const canvas = el("canvas", { class: "picker-preview", height: 72, width: Math.max(24, Math.round(72 * sw / sh)) });
  try { canvas.getContext("2d").drawImage(img, sx, sy, sw, sh, 0, 0, canvas.width, canvas.height); } catch { return null; }
  return canvas;
}

function openPicker(slot, index) {
  pickerState = { slot, index };
  const code = slot.reading.tiles[index].tile;
  $("#picker-current").replaceChildren(...[tilePreview(slot, index), tile(code)].filter(Boolean));
  $$("#picker-grid .pick").forEach((b) => b.classList.toggle("current", b.dataset.code === code));
  $("#picker-remove").hidden = slot.reading.mode === "dice";  // nine dice stay nine: correct a face instead
  $$(".tilebox.picking").forEach((g) => g.classList.remove("picking"));
  const group = $(`svg g.tilebox[data-index='${index}']`, slot);
  if (group) group.classList.add("picking");
  $("#picker").hidden = false;
  // The sheet covers the bottom of the screen: bring the tile above it (with room to scroll to).
  if (group) {
    const sheetTop = $("#picker .sheet-body").getBoundingClientRect().top;
    const headerBottom = $(".top").getBoundingClientRect().bottom;
    const box = group.getBoundingClientRect();
    const room = sheetTop - headerBottom;
    if (box.top < headerBottom + 8 || box.bottom > sheetTop - 8) {
      const wanted = box.top - headerBottom - Math.max(8, (room - box.height) / 2);
      const spare = document.documentElement.scrollHeight - window.innerHeight - window.scrollY;
      if (wanted > spare) document.body.style.paddingBottom = `calc(var(--tabs) + ${Math.ceil(wanted - spare) + 40}px)`;
      window.scrollBy(0, wanted);
    }
  }
}

function closePicker() {
  $("#picker").hidden = true;
  document.body.style.paddingBottom = "";
  $$(".tilebox.picking").forEach((g) => g.classList.remove("picking"));
  pickerState = null;
}

async function pickTile(code) {
  const { slot, index } = pickerState;
  closePicker();
  slot.corrected = true;
  if (code !== "?") settleDoubt(slot, index);  // "?" says "I can't tell either": the doubt stays
  if (slot.reading.mode === "dice") {
    slot.reading.tiles[index].tile = code;
    const faces = slot.reading.tiles.map((item) => item.tile);
    if (faces.length === 9 && !faces.includes("?")) slot.reading.ok = true;  // the count's message no longer holds
    renderDice(slot, null, true);
    return;
  }
  // Read with a taught profile: offer to teach it this tile (only if the player agrees: a button).
  const real = code !== "-" && code !== "?" && code !== slot.reading.tiles[index].tile;
  if (slot.readProfile && real) slot.offer = { box: slot.reading.tiles[index].box, code, profile: slot.readProfile };
  await correctSlot(slot, slot.reading.tiles.map((item, i) => (i === index ? code : item.tile)), true);
}

// "Add this tile to my profile": the photo, the tile's box and the code the player chose.
function offerView(slot) {
  const offer = slot.offer;
  const box = el("div", { class: "offer" });
  if (offer.said) {
    box.append(el("p", { class: offer.ok ? "banner ok" : "error", role: offer.ok ? null : "alert", text: offer.said }));
  } else {
    box.append(el("button", { class: "secondary add-to-profile", text: t("add_to_profile", { tile: offer.code, name: offer.profile }),
      onclick: (event) => busyButton(event.currentTarget, addToProfile(slot)) }));
  }
  return box;
}

async function addToProfile(slot) {
  const offer = slot.offer;
  const form = new FormData();
  form.append("photo", slot.file, slot.file.name || "photo.jpg");
  form.append("box", offer.box.join(","));
  form.append("tile", offer.code);
  try {
    const added = await api("POST", `/api/profiles/${encodeURIComponent(offer.profile)}/tiles`, form);
    Object.assign(offer, { said: added.summary, ok: true });
    loadProfiles();
  } catch (error) {
    Object.assign(offer, { said: error.message, ok: false });
  }
  if (slot.offer === offer && slot.reading) renderReading(slot, false);
}

// Judge the slot's tiles as given (``codes``, one per box of the reading; "-" drops a box).
async function correctSlot(slot, codes, fill) {
  const reading = slot.reading;
  const body = {
    image: reading.image,
    mode: reading.mode,
    rules: currentRules(),
    glare: reading.glare || 0,
    tiles: reading.tiles.map((item, i) => ({ box: item.box, tile: codes[i], up: item.up || null, rack: !!item.rack })),
  };
  try {
    slot.reading = await api("POST", "/api/photo/correct", body);
    renderReading(slot, fill);
  } catch (error) {
    showError($(".slot-result", slot), error);
  }
}

// ---------------------------------------------------------------------------------------------
// Live camera (getUserMedia: HTTPS or localhost only)

let liveStream = null;
let liveCallback = null;

async function openLive(slot, callback) {
  liveCallback = callback;
  const video = $("#live-video");
  const note = $(".live-note", slot);
  note.hidden = true;
  note.classList.remove("error");
  try {
    liveStream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
  } catch (error) {
    // Said in the page, beside the button, with what to do instead (never a raw alert).
    note.textContent = error.name === "NotFoundError" || error.name === "OverconstrainedError" ? t("camera_missing")
      : error.name === "NotAllowedError" || error.name === "SecurityError" ? t("camera_denied")
        : t("live_failed", { error: error.message || error.name });
    note.classList.add("error");
    note.setAttribute("role", "alert");
    note.hidden = false;
    return;
  }
  video.srcObject = liveStream;
  $("#live").hidden = false;
}

function closeLive() {
  if (liveStream) liveStream.getTracks().forEach((track) => track.stop());
  liveStream = null;
  $("#live-video").srcObject = null;
  $("#live").hidden = true;
}

function shootLive() {
  const video = $("#live-video");
  if (!video.videoWidth) return;  // no frame yet
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d").drawImage(video, 0, 0);
  const callback = liveCallback;
  canvas.toBlob((blob) => {
    closeLive();
    if (blob && callback) callback(new File([blob], "live.jpg", { type: "image/jpeg" }));
  }, "image/jpeg", 0.92);
}

// ---------------------------------------------------------------------------------------------
// 1. Table (typed)

async function checkTable() {
  const body = { table: $("#table-text").value, loose: $("#table-loose").value, rules: currentRules() };
  await show($("#table-result"), async () => tableVerdict(await api("POST", "/api/table/check", body)));
}

// ---------------------------------------------------------------------------------------------
// 3. Turn

async function checkTurn() {
  const rack = $("#turn-rack").value.trim();
  const body = {
    before: $("#turn-before").value,
    after: $("#turn-after").value,
    rack_before: rack || null,
    loose_before: $("#turn-before-loose").value,
    loose_after: $("#turn-after-loose").value,
    opened: $("#turn-opened").checked,
    rules: currentRules(),
  };
  await show($("#turn-result"), async () => turnView(await api("POST", "/api/turn/check", body)));
}

function turnView(verdict) {
  const parts = [verdictBanner(verdict.ok, verdict.summary)];
  if (verdict.laid.length) parts.push(el("p", {}, el("strong", { text: t("laid") }), " ", tiles(verdict.laid)));
  if (verdict.missing && verdict.missing.length) parts.push(el("p", {}, el("strong", { text: t("missing") }), " ", tiles(verdict.missing)));
  if (verdict.opening_points !== null && verdict.opening_points !== undefined) {
    parts.push(el("p", { class: "big", text: t("opening_points", { points: verdict.opening_points }) }));
  }
  if (verdict.violations.length) parts.push(el("ul", { class: "problems" }, verdict.violations.map((v) => el("li", { text: v.message }))));
  if (verdict.table && verdict.table.sets.length) parts.push(el("ol", { class: "sets" }, verdict.table.sets.map(setLine)));
  return parts;
}

// ---------------------------------------------------------------------------------------------
// 4. Score

// A player's line: name, photo slot, rack. ``number``: the name is the default "Player n", which
// follows a change of language until the player types another.
function scoreRow(name, fixed, number = null) {
  const row = el("div", { class: "player-rack" });
  const id = "rack-" + Math.random().toString(36).slice(2, 8);
  const nameInput = el("input", { class: "player-name", value: name, readonly: fixed || null,
    "aria-label": t("player_name"), "data-i18n-aria": "player_name", "data-default-n": number });
  nameInput.addEventListener("input", refreshWinners);
  const slot = el("div", { class: "slot compact", "data-mode": "rack", "data-target": id });
  row.append(el("div", { class: "row" }, nameInput, fixed ? null : el("button", {
    class: "icon", text: "✕", "aria-label": t("remove_player"), "data-i18n-aria": "remove_player",
    onclick: () => { row.remove(); refreshWinners(); },
  })), slot, el("input", { id, class: "rack-input", placeholder: "R4 K9 J", spellcheck: "false" }));
  setupSlot(slot);
  return row;
}

// After a change of language: default names still as they were become the new language's.
function renameDefaultPlayers(previous) {
  $$("#score-players .player-name[data-default-n]").forEach((input) => {
    const n = input.dataset.defaultN;
    if (input.value === previous.split("{n}").join(n)) input.value = t("player_n", { n });
  });
  refreshWinners();
}

function scorePlayers() {
  return $$("#score-players .player-rack").map((row) => ({
    name: $(".player-name", row).value.trim(), rack: $(".rack-input", row).value.trim(),
  }));
}

function refreshWinners() {
  const select = $("#score-winner");
  const previous = select.value;
  select.replaceChildren(...scorePlayers().filter((p) => p.name).map((p) => el("option", { value: p.name, text: p.name })),
    el("option", { value: "", text: t("stalemate") }));
  if ([...select.options].some((o) => o.value === previous)) select.value = previous;
}

function setupScorePlayers() {
  const box = $("#score-players");
  box.replaceChildren();
  const fixed = !!currentMatch && !currentMatch.finished;
  if (fixed) currentMatch.players.forEach((name) => box.append(scoreRow(name, true)));
  else [1, 2].forEach((n) => box.append(scoreRow(t("player_n", { n }), false, n)));
  $("#score-add-player").hidden = fixed;
  $("#score-save").hidden = !fixed;
  $("#score-go").hidden = fixed;  // in a match, scoring and saving are one step (undo is on the Match screen)
  showScoreMatch();
  refreshWinners();
}

function showScoreMatch() {
  $("#score-match").textContent = currentMatch && !currentMatch.finished
    ? t("in_match", { name: currentMatch.name, game: currentMatch.next_game })
    : t("no_match");
}

function scoreBody() {
  const racks = {};
  for (const p of scorePlayers()) if (p.name) racks[p.name] = p.rack;
  return { racks, winner: $("#score-winner").value || null };
}

function renderScore(game) {
  const rows = Object.entries(game.scores).map(([player, score]) => el("tr", {},
    el("td", { text: player + (game.winners.includes(player) ? " ★" : "") }),
    el("td", {}, tiles((game.racks || {})[player] || [], "small")),
    el("td", { class: "num", text: game.rack_totals ? game.rack_totals[player] : "" }),
    el("td", { class: score >= 0 ? "num pos" : "num neg", text: (score > 0 ? "+" : "") + score })));
  return el("table", { class: "sheet" }, el("tbody", {}, rows));
}

async function scoreGame(save) {
  const out = $("#score-result");
  if (!save) {
    const body = { ...scoreBody(), rules: currentRules() };
    await show(out, async () => renderScore(await api("POST", "/api/score", body)));
    return;
  }
  try {
    const result = await api("POST", `/api/matches/${currentMatch.id}/games`,
      { ...scoreBody(), expected_number: currentMatch.next_game });
    currentMatch = result.match;
    renderMatch();
    setupScorePlayers();
    // Written once; a change of language shows it again with the match's summary fetched anew.
    await show(out, () => [renderScore(result.game),
      el("p", { class: "banner ok", text: t("saved_summary", { summary: currentMatch ? currentMatch.summary : "" }) })]);
  } catch (error) {
    out.redo = null;
    showError(out, error);
    if (error.status === 409) loadMatch(currentMatch.id);  // someone else wrote a game: catch up
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Move

async function suggestMove() {
  const body = {
    table: $("#move-table").value, rack: $("#move-rack").value, opened: $("#move-opened").checked,
    objective: $("#move-objective").value, rules: currentRules(),
  };
  const exact = $("#move-exact").checked;
  body.tiebreak = exact ? "exact" : "estimate";
  await show($("#move-result"), async () => {
    const move = await api("POST", "/api/suggest", body);
    const parts = [verdictBanner(move.found, move.summary)];
    if (move.found) {
      parts.push(el("p", {}, tiles(move.placed)));
      if (exact && move.moved.length) parts.push(el("p", { class: "muted small", text: move.least_moved ? t("least_proven") : t("least_unproven") }));
      parts.push(el("h4", { text: t("steps") }), el("ol", { class: "steps" }, move.steps.map((s) => el("li", { text: s }))));
      parts.push(el("h4", { text: t("new_table") }), el("ol", { class: "sets plain" },
        move.sets.map((s, i) => el("li", {}, el("span", { class: "set-no", text: t("set_n", { n: move.set_numbers[i] || i + 1 }) }), tiles(s)))));
    }
    return parts;
  });
}

// ---------------------------------------------------------------------------------------------
// 6. Dice

function diceView(best) {
  const parts = [el("p", { class: "dice-score" }, el("strong", { text: String(best.score) }), " ", best.summary)];
  parts.push(el("ol", { class: "sets plain" }, best.arrangement.map((s) =>
    el("li", {}, el("span", { class: "set-no", text: t(s.kind) }), tiles(s.dice), el("span", { class: "muted", text: " " + s.points })))));
  if (best.unused.length) parts.push(el("p", {}, el("strong", { text: t("unused") }), " ", tiles(best.unused)));
  if (best.breakdown.length) parts.push(el("ul", { class: "muted small" }, best.breakdown.map((line) => el("li", { text: line }))));
  return parts;
}

async function diceBest() {
  const body = { faces: $("#dice-faces").value };
  await show($("#dice-result"), async () => diceView(await api("POST", "/api/dice/best", body)));
}

let diceSheet = null;

function renderDiceSheet() {
  const box = $("#dice-sheet");
  if (!diceSheet) { box.replaceChildren(el("p", { class: "muted", text: t("no_sheet") })); return; }
  const s = diceSheet;
  const head = el("tr", {}, el("th", { text: t("turn_of") }), s.players.map((p) => el("th", { text: p })));
  const rows = [];
  for (let turn = 1; turn <= s.turns; turn++) {
    rows.push(el("tr", {}, el("td", { text: turn }), s.players.map((p) => {
      const entry = s.entries.find((e) => e.player === p && e.turn === turn);
      return el("td", { class: "num", text: entry ? entry.score : "" });
    })));
  }
  rows.push(el("tr", { class: "total" }, el("td", { text: t("total") }), s.players.map((p) => el("td", { class: "num", text: s.totals[p] }))));
  const actions = el("div", { class: "row" });
  if (s.next_player) {
    actions.append(el("button", { class: "primary", id: "dice-add", text: t("add_turn", { player: s.next_player }), onclick: addDiceTurn }));
  }
  actions.append(el("a", { class: "button", href: `/api/dice/sheets/${s.id}/export.csv`, download: "", text: t("export_csv") }));
  actions.append(el("button", { class: "secondary", text: t("delete"), onclick: deleteDiceSheet }));
  box.replaceChildren(el("p", { class: "banner " + (s.complete ? "ok" : "info"), text: s.summary }),
    el("div", { class: "scroll" }, el("table", { class: "sheet" }, el("thead", {}, head), el("tbody", {}, rows))), actions);
}

async function loadDiceSheet() {
  const id = store.get("diceSheet");
  diceSheet = null;
  if (id) {
    try { diceSheet = await api("GET", `/api/dice/sheets/${id}`); } catch (error) { if (error.status === 404) store.set("diceSheet", null); }
  }
  renderDiceSheet();
}

async function createDiceSheet() {
  const players = $("#dice-players").value.split("\n").map((s) => s.trim()).filter(Boolean);
  const out = $("#dice-note");
  out.replaceChildren();
  if (!players.length) { showError(out, new Error(t("players_needed"))); return; }
  try {
    diceSheet = await api("POST", "/api/dice/sheets", { players, turns: Number($("#dice-turns").value) || 6 });
    store.set("diceSheet", diceSheet.id);
    $("#dice-new").open = false;
    renderDiceSheet();
  } catch (error) { showError(out, error); }
}

async function addDiceTurn() {
  const out = $("#dice-result");
  try {
    diceSheet = await api("POST", `/api/dice/sheets/${diceSheet.id}/turns`, { player: diceSheet.next_player, faces: $("#dice-faces").value });
    const last = diceSheet.entries[diceSheet.entries.length - 1];
    renderDiceSheet();
    if (last && last.arrangement && last.arrangement.arrangement) {
      let best = last.arrangement;  // first shown from the sheet's entry
      await show(out, async () => {
        const shown = best || await api("POST", "/api/dice/best", { faces: last.faces });
        best = null;  // a later redo (a change of language) arranges the same faces anew
        return diceView({ ...shown, summary: t("score_is", { score: last.score }) });
      });
    }
  } catch (error) { out.redo = null; showError(out, error); }
}

async function deleteDiceSheet() {
  if (!confirm(t("confirm_delete"))) return;
  try {
    await api("DELETE", `/api/dice/sheets/${diceSheet.id}`);
  } catch (error) {
    if (error.status !== 404) { showError($("#dice-note"), error); return; }  // refused: the sheet stays
  }
  store.set("diceSheet", null);
  diceSheet = null;
  renderDiceSheet();
}

// ---------------------------------------------------------------------------------------------
// 7. Match: sheet, timer, list

// ``reset``: the turn timer starts again from the rule set's seconds (not when only the language
// changed: a running turn keeps its time).
function renderMatch(reset = true) {
  const box = $("#match-current");
  $("#timer").hidden = !currentMatch || currentMatch.finished;
  if (!currentMatch) { box.replaceChildren(el("p", { class: "muted", text: t("no_match") })); return; }
  const m = currentMatch;
  const head = el("tr", {}, el("th", { text: t("game") }), m.players.map((p) => el("th", { text: p })));
  const rows = m.games.map((g) => el("tr", {}, el("td", {}, String(g.number), el("span", { class: "muted small", text: " · " + t("round_n", { n: g.round }) })),
    m.players.map((p) => el("td", { class: "num" + (g.winners.includes(p) ? " won" : ""), text: (g.scores[p] > 0 ? "+" : "") + g.scores[p] }))));
  const byPlayer = Object.fromEntries(m.standings.map((s) => [s.player, s]));
  rows.push(el("tr", { class: "total" }, el("td", { text: t("total") }), m.players.map((p) => el("td", { class: "num", text: byPlayer[p].total }))));
  rows.push(el("tr", { class: "total" }, el("td", { text: t("games_won_short") }), m.players.map((p) => el("td", { class: "num", text: byPlayer[p].games_won }))));
  if (m.rules.match_scoring === "target_points") {
    rows.push(el("tr", { class: "total" }, el("td", { text: t("collected") }), m.players.map((p) => el("td", { class: "num", text: byPlayer[p].collected }))));
  }
  const parts = [
    el("h3", { text: m.name }),
    el("p", { class: "banner " + (m.finished ? "ok" : "info"), text: m.summary }),
    el("div", { class: "scroll" }, el("table", { class: "sheet" }, el("thead", {}, head), el("tbody", {}, rows))),
  ];
  if (m.penalties.length) {
    parts.push(el("details", {}, el("summary", { text: `${t("penalties")} (${m.penalties.length})` }),
      el("ul", { class: "small" }, m.penalties.map((p) => el("li", { text: t("penalty_line", { game: p.game_number, player: p.player, note: p.note }) })))));
  }
  parts.push(el("div", { class: "row" },
    el("a", { class: "button", href: `/api/matches/${m.id}/export.csv`, download: "", text: t("export_csv") }),
    m.games.length ? el("button", { class: "secondary", text: t("undo_game"), onclick: undoGame }) : null));
  box.replaceChildren(...parts);
  if (reset) timerReset();
  else timerShow();
}

async function loadMatch(id) {
  currentMatch = null;
  if (id) {
    try { currentMatch = await api("GET", `/api/matches/${id}`); } catch (error) { if (error.status === 404) store.set("match", null); }
  }
  store.set("match", currentMatch ? currentMatch.id : null);
  renderMatch();
  // Keep racks typed so far unless the players changed (another match, or the match ended).
  const names = scorePlayers().map((p) => p.name).join("\n");
  const wanted = currentMatch && !currentMatch.finished ? currentMatch.players.join("\n") : null;
  if (wanted === null ? $("#score-add-player").hidden || !names : names !== wanted) setupScorePlayers();
  else showScoreMatch();
}

async function loadMatchList() {
  const list = $("#match-list");
  try {
    const { matches } = await api("GET", "/api/matches");
    list.replaceChildren(...matches.map((m) => el("li", { class: currentMatch && m.id === currentMatch.id ? "current" : "" },
      el("div", {}, el("strong", { text: m.name }), el("span", { class: "muted small", text: " " + m.players.join(", ") }),
        el("div", { class: "muted small", text: m.summary })),
      el("div", { class: "row tight" },
        el("button", { class: "secondary", text: t("open"), onclick: async () => { await loadMatch(m.id); loadMatchList(); } }),
        el("button", { class: "secondary", text: t("delete"), onclick: async () => {
          if (!confirm(t("confirm_delete"))) return;
          try {
            await api("DELETE", `/api/matches/${m.id}`);
          } catch (error) {
            if (error.status !== 404) { showError($("#match-note"), error); return; }  // refused: nothing changed
          }
          if (currentMatch && currentMatch.id === m.id) await loadMatch(null);
          loadMatchList();
        } })))));
  } catch (error) { showError(list, error); }
}

function rulesFromForm() {
  const rules = {
    name: $("#rule-name").value,
    opening_minimum: Number($("#rule-opening").value),
    jokers_in_opening: $("#rule-jokers-opening").checked,
    joker_from_table_tile: $("#rule-joker-table").checked,
    turn_seconds: Number($("#rule-seconds").value),
    timeout_penalty: $("#rule-timeout").value,
    match_scoring: $("#rule-scoring").value,
  };
  if (rules.match_scoring === "target_points") rules.target_points = Number($("#rule-target").value);
  return rules;
}

async function createMatch() {
  const players = $("#match-players").value.split("\n").map((s) => s.trim()).filter(Boolean);
  const out = $("#match-note");
  out.replaceChildren();
  if (!players.length) { showError(out, new Error(t("players_needed"))); return; }
  try {
    const match = await api("POST", "/api/matches", {
      name: $("#match-name").value.trim(), players, rounds: Number($("#match-rounds").value) || 1, rules: rulesFromForm(),
    });
    $("#match-new").open = false;
    store.set("timerPlayer", 0);
    await loadMatch(match.id);
    loadMatchList();
  } catch (error) { showError(out, error); }
}

async function undoGame() {
  if (!confirm(t("confirm_undo"))) return;
  try { currentMatch = await api("DELETE", `/api/matches/${currentMatch.id}/games/last`); renderMatch(); setupScorePlayers(); } catch (error) { showError($("#match-note"), error); }
}

// The turn timer: the rule set's seconds; when time runs out, the rule set's penalty.
const timer = { left: 60, handle: null };

function timerPlayer() {
  if (!currentMatch) return "";
  const i = (store.get("timerPlayer", 0) || 0) % currentMatch.players.length;
  return currentMatch.players[i];
}

function timerShow() {
  const m = Math.floor(timer.left / 60);
  const s = String(timer.left % 60).padStart(2, "0");
  $("#timer-time").textContent = `${m}:${s}`;
  $("#timer-player").textContent = timerPlayer();
  $("#timer").classList.toggle("urgent", timer.left <= 10 && !!timer.handle);
  $("#timer-start").textContent = timer.handle ? t("timer_pause") : t("timer_start");
}

function timerStop() { clearInterval(timer.handle); timer.handle = null; }

function timerReset() {
  timerStop();
  timer.left = currentMatch ? currentMatch.rules.turn_seconds : 60;
  $("#timer-out").hidden = true;
  $("#timer-penalty").replaceChildren();
  $("#timer-penalty").redo = null;
  timerShow();
}

function timerToggle() {
  if (timer.handle) { timerStop(); timerShow(); return; }
  if (timer.left <= 0) timerReset();
  timer.handle = setInterval(() => {
    timer.left -= 1;
    if (timer.left <= 0) {
      timer.left = 0;
      timerStop();
      $("#timer-out").hidden = false;
      if (navigator.vibrate) navigator.vibrate([300, 100, 300]);
    }
    timerShow();
  }, 1000);
  timerShow();
}

function timerNext() {
  store.set("timerPlayer", (store.get("timerPlayer", 0) || 0) + 1);
  timerReset();
}

async function timerPenalty(kind) {
  const out = $("#timer-penalty");
  const player = timerPlayer();
  const touched = kind === "unfinished";
  try {
    const result = await api("POST", `/api/matches/${currentMatch.id}/penalties`, { player, touched_table: touched });
    $("#timer-out").hidden = true;
    // Logged once; a change of language asks the referee for the same penalty's sentence again.
    let penalty = result.penalty;
    await show(out, async () => {
      const shown = penalty || await api("POST", "/api/penalty", { touched_table: touched, rules: currentRules() });
      penalty = null;
      return el("p", { class: "banner bad", text: t("player_said", { player, message: shown.message }) });
    });
    currentMatch = await api("GET", `/api/matches/${currentMatch.id}`);
    renderMatch(false);  // the sheet with the penalty; the sentence above stays
    timer.left = currentMatch.rules.turn_seconds;  // ready for the next turn
    timerShow();
  } catch (error) { showError(out, error); }
}

// ---------------------------------------------------------------------------------------------
// 8. Teach it my tiles: profiles of the player's edition, kept by the server; the one photos are read with

// The layout the screen suggests: 1-13 of each colour, one row each, then the two jokers.
const FULL_SET_ROWS = ["K", "B", "O", "R"].map((c) => Array.from({ length: 13 }, (_, i) => c + (i + 1)).join(" ")).concat(["J J"]);
let profiles = [];
let teachFile = null;

function chosenProfile() { return store.get("profile", null); }

function renderProfiles() {
  const select = $("#profile-pick");
  const chosen = chosenProfile();
  select.replaceChildren(el("option", { value: "", text: t("profile_none") }),
    ...profiles.map((p) => el("option", { value: p.name, text: p.name })));
  select.value = profiles.some((p) => p.name === chosen) ? chosen : "";
  $("#profile-names").replaceChildren(...profiles.map((p) => el("option", { value: p.name })));
  const list = $("#profile-list");
  if (!profiles.length) { list.replaceChildren(el("li", { class: "muted", text: t("no_profiles") })); return; }
  list.replaceChildren(...profiles.map((p) => el("li", { class: p.name === chosen ? "current" : "" },
    el("div", {}, el("strong", { text: p.name }),
      el("div", { class: "muted small", text: t("profile_line", { codes: p.taught.length, photos: p.photos, added: p.added_tiles }) })),
    el("div", { class: "row tight" }, el("button", { class: "secondary", text: t("delete"), onclick: () => deleteProfile(p.name) })))));
}

async function loadProfiles() {
  try {
    profiles = (await api("GET", "/api/profiles")).profiles;
    // A profile deleted meanwhile (another phone): read with the reader alone again.
    if (chosenProfile() && !profiles.some((p) => p.name === chosenProfile())) store.set("profile", null);
  } catch (error) {
    profiles = [];
    if (error.status !== 403) showError($("#profile-note"), error);  // a guest sees the join form instead
  }
  renderProfiles();
}

async function deleteProfile(name) {
  if (!confirm(t("confirm_delete_profile"))) return;
  try {
    await api("DELETE", `/api/profiles/${encodeURIComponent(name)}`);
  } catch (error) {
    if (error.status !== 404) { showError($("#profile-note"), error); return; }  // refused: nothing changed
  }
  if (chosenProfile() === name) store.set("profile", null);
  await loadProfiles();
}

function teachPhoto(event) {
  const file = event.target.files && event.target.files[0];
  event.target.value = "";  // the same photo chosen twice still fires
  if (!file) return;
  teachFile = file;
  const img = $("#teach-preview");
  if (img.src) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(file);
  img.hidden = false;
}

// Teaching writes a profile: said once, in the language of the moment (not made again on a switch).
async function teachProfile() {
  const out = $("#teach-result");
  out.redo = null;
  if (!teachFile) { showError(out, new Error(t("teach_photo_needed"))); return; }
  const form = new FormData();
  form.append("photo", teachFile, teachFile.name || "tiles.jpg");
  form.append("tiles", $("#teach-rows").value);
  form.append("name", $("#teach-name").value);
  out.replaceChildren(el("p", { class: "muted", text: t("teaching") }));
  try {
    const taught = await api("POST", "/api/profiles", form);
    store.set("profile", taught.profile.name);  // photos are read with what was just taught
    await loadProfiles();
    out.replaceChildren(el("p", { class: "banner ok", text: taught.summary }),
      el("p", { class: "muted small", text: t("profile_line", { codes: taught.profile.taught.length,
        photos: taught.profile.photos, added: taught.profile.added_tiles }) }));
  } catch (error) { showError(out, error); }
}

// ---------------------------------------------------------------------------------------------
// Tabs and start-up

function showScreen(name) {
  if (!document.querySelector(`[data-screen="${name}"]`)) name = "table";
  $$(".screen").forEach((s) => { s.hidden = s.dataset.screen !== name; });
  $$(".tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  store.set("screen", name);
  if (name === "match") loadMatchList();
  if (name === "teach") loadProfiles();
  // Another phone may have written to the sheet meanwhile: fetch it again (racks typed stay).
  if ((name === "score" || name === "match") && currentMatch) loadMatch(currentMatch.id);
  window.scrollTo(0, 0);
}

// The switch in the header: remember the choice in the cookie the server reads, fetch the
// strings, and make everything on the page again in that language - fields, photos, results and
// the open screen stay as they were.
async function switchLanguage(code) {
  document.cookie = `${LANG_COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  const previousPlayer = t("player_n");
  try {
    await loadStrings(code);
  } catch (error) {
    $("#status").textContent = t("network_error");
    return;
  }
  renameDefaultPlayers(previousPlayer);
  showScoreMatch();
  timerShow();
  renderDiceSheet();
  renderProfiles();
  await showServerInfo();
  // Sentences the server wrote: ask again.
  const again = [];
  if (currentMatch) {
    again.push(api("GET", `/api/matches/${currentMatch.id}`).then((m) => { currentMatch = m; renderMatch(false); showScoreMatch(); })
      .catch(() => null));
  } else renderMatch(false);
  if (diceSheet) again.push(api("GET", `/api/dice/sheets/${diceSheet.id}`).then((d) => { diceSheet = d; renderDiceSheet(); }).catch(() => null));
  if (!$("#screen-match").hidden) again.push(loadMatchList());
  await Promise.all(again);
  const results = $$(".result").filter((out) => out.redo);
  await Promise.all([...results.map((out) => show(out, out.redo)), ...$$(".slot").map(translateSlot)]);
  document.body.dataset.language = LANGUAGE;  // for the browser tests: everything is redone
}

// What the server can do (tile models loaded?): the status in the header and a note on each
// screen with a photo slot, in the current language.
async function showServerInfo() {
  $$(".model-note").forEach((note) => note.remove());
  try {
    serverInfo = await api("GET", "/api/health");
    await showAccess();
    $("#status").textContent = serverInfo.models_loaded ? "" : t("typed_only");
    if (!serverInfo.models_loaded) {
      $$(".screen").forEach((screen) => {
        const first = $(".slot", screen);
        if (first) first.before(el("p", { class: "note model-note", text: serverInfo.model_problem || "" }));
      });
    }
  } catch (error) { $("#status").textContent = error.message; }
}

// Served on the network: a phone that has not joined sees the code form (everything else answers
// 403); the computer that runs the server sees the QR code a phone scans to join in one step.
async function showAccess() {
  $("#join").hidden = !(serverInfo.join_required && serverInfo.access === "guest");
  const box = $("#share");
  box.hidden = true;
  if (!serverInfo.join_required || serverInfo.access !== "local") return;
  const share = await api("GET", "/api/join/share");
  if (!share.url) return;
  const template = document.createElement("template");
  template.innerHTML = share.svg;  // made by the server (segno) from its own address: no user text
  $(".share-qr", box).replaceChildren(template.content);
  $(".share-line", box).replaceChildren(...withNodes(t("share_line"), {
    url: el("a", { href: share.url, text: share.urls[0] }), code: el("span", { class: "share-code", text: share.code }),
  }));
  box.hidden = false;
}

async function joinTable() {
  const out = $("#join-result");
  try {
    await api("POST", "/api/join", { code: $("#join-code").value });
    location.reload();  // everything again, now allowed
  } catch (error) { showError(out, error); }
}

async function start() {
  try {
    await loadStrings(null);  // the server chooses: cookie, then Accept-Language
  } catch (error) {
    $("#status").textContent = error.message;
  }
  document.documentElement.classList.remove("loading");
  $("#lang").addEventListener("change", (e) => switchLanguage(e.target.value));
  $$(".slot").forEach(setupSlot);
  buildPicker();
  $("#join-go").addEventListener("click", (e) => busyButton(e.currentTarget, joinTable()));
  $("#table-check").addEventListener("click", (e) => busyButton(e.currentTarget, checkTable()));
  $("#turn-check").addEventListener("click", (e) => busyButton(e.currentTarget, checkTurn()));
  $("#score-go").addEventListener("click", (e) => busyButton(e.currentTarget, scoreGame(false)));
  $("#score-save").addEventListener("click", (e) => busyButton(e.currentTarget, scoreGame(true)));
  $("#score-add-player").addEventListener("click", () => {
    const n = scorePlayers().length + 1;
    $("#score-players").append(scoreRow(t("player_n", { n }), false, n));
    refreshWinners();
  });
  $("#move-go").addEventListener("click", (e) => busyButton(e.currentTarget, suggestMove()));
  $("#dice-go").addEventListener("click", (e) => busyButton(e.currentTarget, diceBest()));
  $("#dice-create").addEventListener("click", createDiceSheet);
  $("#match-create").addEventListener("click", (e) => busyButton(e.currentTarget, createMatch()));
  $("#rule-scoring").addEventListener("change", () => { $("#rule-target-field").hidden = $("#rule-scoring").value !== "target_points"; });
  $("#rule-name").addEventListener("change", () => { if ($("#rule-name").value === "xp") $("#match-players").placeholder = "Ana\nBen\nChen\nDara\nEli"; });
  $("#timer-start").addEventListener("click", timerToggle);
  $("#timer-next").addEventListener("click", timerNext);
  $$("[data-penalty]").forEach((b) => b.addEventListener("click", () => timerPenalty(b.dataset.penalty)));
  $("#teach-rows").value = FULL_SET_ROWS.join(" |\n");
  $("#teach-camera").addEventListener("change", teachPhoto);
  $("#teach-pick").addEventListener("change", teachPhoto);
  $("#teach-go").addEventListener("click", (e) => busyButton(e.currentTarget, teachProfile()));
  $("#profile-pick").addEventListener("change", (e) => { store.set("profile", e.target.value || null); renderProfiles(); });
  $("#live-close").addEventListener("click", closeLive);
  $("#live-shoot").addEventListener("click", shootLive);
  $$(".tabs button").forEach((b) => b.addEventListener("click", () => { history.replaceState(null, "", "#" + b.dataset.tab); showScreen(b.dataset.tab); }));
  window.addEventListener("hashchange", () => showScreen(location.hash.slice(1)));
  showScreen(location.hash.slice(1) || store.get("screen", "table"));

  await showServerInfo();
  await loadMatch(store.get("match"));
  await loadDiceSheet();
  await loadProfiles();
  document.body.dataset.language = LANGUAGE;
  document.body.dataset.ready = "1";  // for the browser tests
}

document.addEventListener("DOMContentLoaded", start);
