// The page: talks only to the JSON API under /api (see /docs). No framework, nothing from the network.
"use strict";

// ---------------------------------------------------------------------------------------------
// Strings and small helpers

const LANG = (() => {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.split("-")[0];
    if (STRINGS[tag]) return tag;
    if (STRINGS[base]) return base;
  }
  return "en";
})();

function t(key, params) {
  let text = (STRINGS[LANG] && STRINGS[LANG][key]) || STRINGS.en[key] || key;
  for (const [name, value] of Object.entries(params || {})) text = text.split(`{${name}}`).join(String(value));
  return text;
}

function applyStrings(root) {
  root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
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
  if (verdict.loose && verdict.loose.length) box.append(el("p", { class: "loose" }, el("strong", { text: t("loose") + ": " }), tiles(verdict.loose)));
  const others = verdict.violations.filter((v) => !(v.sets || []).length && v.code !== "loose_tile");
  if (others.length) box.append(el("ul", { class: "problems" }, others.map((v) => el("li", { text: v.message }))));
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
  const live = $(".live", slot);
  if (LIVE_OK) {
    live.addEventListener("click", () => openLive((file) => handlePhoto(slot, file)));
  } else {
    live.disabled = true;
    const note = $(".live-note", slot);
    note.textContent = t("live_unavailable");
    note.hidden = false;
  }
}

function slotTarget(slot) {
  return slot.dataset.target ? document.getElementById(slot.dataset.target) : null;
}

async function handlePhoto(slot, file) {
  const viewer = $(".viewer", slot);
  const img = $("img", viewer);
  const result = $(".slot-result", slot);
  if (slot.objectUrl) URL.revokeObjectURL(slot.objectUrl);
  slot.objectUrl = URL.createObjectURL(file);
  img.src = slot.objectUrl;
  $("svg", viewer).replaceChildren();
  viewer.hidden = false;
  $(".busy", viewer).hidden = false;
  result.replaceChildren();
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  try {
    if (slot.dataset.mode === "dice") {
      const data = await api("POST", "/api/dice/read", form);
      slotTarget(slot).value = data.faces;
      slot.reading = {
        image: data.image, mode: "dice", rack: [],
        tiles: data.dice.map((d) => ({ tile: d.tile, box: d.box, set: 0 })),
        verdict: { sets: [{ valid: !!data.best }] },
      };
      drawOverlay(slot);
      if (data.best) renderDice($("#dice-result"), data.best);
      else result.replaceChildren(el("p", { class: "banner bad", text: data.message || t("no_tiles") }));
      if (data.doubts.length) result.append(el("div", { class: "doubts" }, el("strong", { text: t("doubts") }),
        el("ul", {}, data.doubts.map((d) => el("li", { text: d.message || JSON.stringify(d) })))));
    } else {
      form.append("mode", slot.dataset.mode);
      form.append("preset", currentRules().name || "classic");
      slot.reading = await api("POST", "/api/photo/read", form);
      renderReading(slot);
    }
  } catch (error) {
    showError(result, error);
  } finally {
    $(".busy", viewer).hidden = true;
  }
}

function tileStatus(reading, index) {
  const item = reading.tiles[index];
  if (item.tile === "?") return "doubt";
  if ((reading.rack || []).includes(index)) return "rack";
  if (item.set === null || item.set === undefined) return "loose";
  const verdict = reading.verdict.sets[item.set];
  return verdict && verdict.valid ? "ok" : "bad";
}

function drawOverlay(slot) {
  const reading = slot.reading;
  const svg = $("svg", slot);
  const { width, height } = reading.image;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const ns = "http://www.w3.org/2000/svg";
  const font = Math.max(12, Math.round(Math.max(width, height) / 45));
  const stroke = Math.max(2, Math.round(Math.max(width, height) / 400));
  svg.replaceChildren();
  reading.tiles.forEach((item, index) => {
    const [x1, y1, x2, y2] = item.box;
    const group = document.createElementNS(ns, "g");
    const doubtful = (reading.doubts || []).some((d) => d.index === index);
    group.setAttribute("class", `tilebox ${tileStatus(reading, index)}${doubtful ? " doubtful" : ""}`);
    group.setAttribute("data-index", index);
    group.setAttribute("role", "button");
    group.setAttribute("aria-label", item.tile);
    const rect = document.createElementNS(ns, "rect");
    Object.entries({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: stroke * 2, "stroke-width": stroke })
      .forEach(([k, v]) => rect.setAttribute(k, v));
    const labelW = font * (item.tile.length * 0.62 + 0.5);
    const bg = document.createElementNS(ns, "rect");
    const ly = Math.max(0, y1 - font * 1.1);
    Object.entries({ x: x1, y: ly, width: labelW, height: font * 1.1, rx: font * 0.2, class: "label-bg" })
      .forEach(([k, v]) => bg.setAttribute(k, v));
    const text = document.createElementNS(ns, "text");
    Object.entries({ x: x1 + font * 0.25, y: ly + font * 0.9, "font-size": font, class: "label" })
      .forEach(([k, v]) => text.setAttribute(k, v));
    text.textContent = item.tile;
    group.append(rect, bg, text);
    if (reading.mode !== "dice") group.addEventListener("click", () => openPicker(slot, index));  // dice: edit the faces field
    svg.append(group);
  });
}

function renderReading(slot) {
  const reading = slot.reading;
  drawOverlay(slot);
  const target = slotTarget(slot);
  if (target) target.value = reading.mode === "rack" ? reading.rack_tiles : reading.table.join(" | ");
  const result = $(".slot-result", slot);
  const parts = [];
  if (!reading.tiles.length) {
    parts.push(el("p", { class: "banner bad", text: t("no_tiles") }));
  } else if (reading.mode === "rack") {
    const codes = reading.rack.map((i) => reading.tiles[i].tile);
    parts.push(el("p", {}, el("strong", { text: t("rack_read") + ": " }), tiles(codes)));
    parts.push(el("p", { class: "muted", text: t("rack_points", { points: reading.rack_points }) }));
  } else {
    parts.push(tableVerdict(reading.verdict));
    const rackCodes = (reading.rack || []).map((i) => reading.tiles[i].tile);
    if (rackCodes.length) parts.push(el("p", {}, el("strong", { text: t("rack_read") + ": " }), tiles(rackCodes)));
  }
  if (reading.doubts && reading.doubts.length) {
    // Each doubt opens the picker on its tile (dashed on the photo).
    const items = reading.doubts.map((d) => el("li", {},
      Number.isInteger(d.index) && reading.tiles[d.index]
        ? el("button", { class: "link", onclick: () => openPicker(slot, d.index) }, d.message || d.tile)
        : (d.message || JSON.stringify(d))));
    parts.push(el("div", { class: "doubts" }, el("strong", { text: t("doubts") }), el("ul", {}, items)));
  }
  if (reading.tiles.length) parts.push(el("p", { class: "muted small", text: t("tap_to_fix") }));
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

function openPicker(slot, index) {
  pickerState = { slot, index };
  $("#picker-current").replaceChildren(tile(slot.reading.tiles[index].tile));
  $$("#picker-grid .pick").forEach((b) => b.classList.toggle("current", b.dataset.code === slot.reading.tiles[index].tile));
  $("#picker").hidden = false;
}

function closePicker() {
  $("#picker").hidden = true;
  pickerState = null;
}

async function pickTile(code) {
  const { slot, index } = pickerState;
  closePicker();
  const reading = slot.reading;
  const body = {
    image: reading.image,
    mode: reading.mode,
    rules: currentRules(),
    tiles: reading.tiles.map((item, i) => ({ box: item.box, tile: i === index ? code : item.tile, up: item.up || null })),
  };
  try {
    slot.reading = await api("POST", "/api/photo/correct", body);
    renderReading(slot);
  } catch (error) {
    showError($(".slot-result", slot), error);
  }
}

// ---------------------------------------------------------------------------------------------
// Live camera (getUserMedia: HTTPS or localhost only)

let liveStream = null;
let liveCallback = null;

async function openLive(callback) {
  liveCallback = callback;
  const video = $("#live-video");
  try {
    liveStream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
  } catch (error) {
    alert(t("live_failed", { error: error.message || error.name }));
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
  const out = $("#table-result");
  try {
    const verdict = await api("POST", "/api/table/check", { table: $("#table-text").value, rules: currentRules() });
    out.replaceChildren(tableVerdict(verdict));
  } catch (error) { showError(out, error); }
}

// ---------------------------------------------------------------------------------------------
// 3. Turn

async function checkTurn() {
  const out = $("#turn-result");
  const rack = $("#turn-rack").value.trim();
  try {
    const verdict = await api("POST", "/api/turn/check", {
      before: $("#turn-before").value,
      after: $("#turn-after").value,
      rack_before: rack || null,
      opened: $("#turn-opened").checked,
      rules: currentRules(),
    });
    const parts = [verdictBanner(verdict.ok, verdict.summary)];
    if (verdict.laid.length) parts.push(el("p", {}, el("strong", { text: t("laid") + ": " }), tiles(verdict.laid)));
    if (verdict.missing && verdict.missing.length) parts.push(el("p", {}, el("strong", { text: t("missing") + ": " }), tiles(verdict.missing)));
    if (verdict.opening_points !== null && verdict.opening_points !== undefined) {
      parts.push(el("p", { class: "big", text: t("opening_points", { points: verdict.opening_points }) }));
    }
    if (verdict.violations.length) parts.push(el("ul", { class: "problems" }, verdict.violations.map((v) => el("li", { text: v.message }))));
    if (verdict.table && verdict.table.sets.length) parts.push(el("ol", { class: "sets" }, verdict.table.sets.map(setLine)));
    out.replaceChildren(...parts);
  } catch (error) { showError(out, error); }
}

// ---------------------------------------------------------------------------------------------
// 4. Score

function scoreRow(name, fixed) {
  const row = el("div", { class: "player-rack" });
  const id = "rack-" + Math.random().toString(36).slice(2, 8);
  const nameInput = el("input", { class: "player-name", value: name, readonly: fixed || null, "aria-label": "name" });
  nameInput.addEventListener("input", refreshWinners);
  const slot = el("div", { class: "slot compact", "data-mode": "rack", "data-target": id });
  row.append(el("div", { class: "row" }, nameInput, fixed ? null : el("button", {
    class: "icon", text: "✕", "aria-label": "remove", onclick: () => { row.remove(); refreshWinners(); },
  })), slot, el("input", { id, class: "rack-input", placeholder: "R4 K9 J", spellcheck: "false" }));
  setupSlot(slot);
  return row;
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
  const names = fixed ? currentMatch.players : [t("player_n", { n: 1 }), t("player_n", { n: 2 })];
  names.forEach((name) => box.append(scoreRow(name, fixed)));
  $("#score-add-player").hidden = fixed;
  $("#score-save").hidden = !fixed;
  $("#score-go").hidden = fixed;  // in a match, scoring and saving are one step (undo is on the Match screen)
  $("#score-match").textContent = fixed
    ? t("in_match", { name: currentMatch.name, game: currentMatch.next_game })
    : t("no_match");
  refreshWinners();
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
  try {
    if (save) {
      const result = await api("POST", `/api/matches/${currentMatch.id}/games`,
        { ...scoreBody(), expected_number: currentMatch.next_game });
      currentMatch = result.match;
      renderMatch();
      setupScorePlayers();
      out.replaceChildren(renderScore(result.game), el("p", { class: "banner ok", text: t("saved") + " " + currentMatch.summary }));
    } else {
      const body = scoreBody();
      body.rules = currentRules();
      out.replaceChildren(renderScore(await api("POST", "/api/score", body)));
    }
  } catch (error) {
    showError(out, error);
    if (save && error.status === 409) loadMatch(currentMatch.id);  // someone else wrote a game: catch up
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Move

async function suggestMove() {
  const out = $("#move-result");
  try {
    const move = await api("POST", "/api/suggest", {
      table: $("#move-table").value, rack: $("#move-rack").value, opened: $("#move-opened").checked,
      objective: $("#move-objective").value, rules: currentRules(),
    });
    const parts = [verdictBanner(move.found, move.summary)];
    if (move.found) {
      parts.push(el("p", {}, tiles(move.placed)));
      parts.push(el("h4", { text: t("steps") }), el("ol", { class: "steps" }, move.steps.map((s) => el("li", { text: s }))));
      parts.push(el("h4", { text: t("new_table") }), el("ol", { class: "sets plain" },
        move.sets.map((s, i) => el("li", {}, el("span", { class: "set-no", text: t("set_n", { n: move.set_numbers[i] || i + 1 }) }), tiles(s)))));
    }
    out.replaceChildren(...parts);
  } catch (error) { showError(out, error); }
}

// ---------------------------------------------------------------------------------------------
// 6. Dice

function renderDice(out, best) {
  const parts = [el("p", { class: "dice-score" }, el("strong", { text: String(best.score) }), " ", best.summary)];
  parts.push(el("ol", { class: "sets plain" }, best.arrangement.map((s) =>
    el("li", {}, el("span", { class: "set-no", text: t(s.kind) }), tiles(s.dice), el("span", { class: "muted", text: " " + s.points })))));
  if (best.unused.length) parts.push(el("p", {}, el("strong", { text: t("unused") + ": " }), tiles(best.unused)));
  if (best.breakdown.length) parts.push(el("ul", { class: "muted small" }, best.breakdown.map((line) => el("li", { text: line }))));
  out.replaceChildren(...parts);
}

async function diceBest() {
  const out = $("#dice-result");
  try { renderDice(out, await api("POST", "/api/dice/best", { faces: $("#dice-faces").value })); } catch (error) { showError(out, error); }
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
  if (!players.length) { alert(t("players_needed")); return; }
  try {
    diceSheet = await api("POST", "/api/dice/sheets", { players, turns: Number($("#dice-turns").value) || 6 });
    store.set("diceSheet", diceSheet.id);
    $("#dice-new").open = false;
    renderDiceSheet();
  } catch (error) { alert(error.message); }
}

async function addDiceTurn() {
  const out = $("#dice-result");
  try {
    diceSheet = await api("POST", `/api/dice/sheets/${diceSheet.id}/turns`, { player: diceSheet.next_player, faces: $("#dice-faces").value });
    const last = diceSheet.entries[diceSheet.entries.length - 1];
    if (last && last.arrangement && last.arrangement.arrangement) renderDice(out, { ...last.arrangement, summary: t("score_is", { score: last.score }) });
    renderDiceSheet();
  } catch (error) { showError(out, error); }
}

async function deleteDiceSheet() {
  if (!confirm(t("confirm_delete"))) return;
  await api("DELETE", `/api/dice/sheets/${diceSheet.id}`).catch(() => null);
  store.set("diceSheet", null);
  diceSheet = null;
  renderDiceSheet();
}

// ---------------------------------------------------------------------------------------------
// 7. Match: sheet, timer, list

function renderMatch() {
  const box = $("#match-current");
  $("#timer").hidden = !currentMatch || currentMatch.finished;
  if (!currentMatch) { box.replaceChildren(el("p", { class: "muted", text: t("no_match") })); return; }
  const m = currentMatch;
  const head = el("tr", {}, el("th", { text: t("game") }), m.players.map((p) => el("th", { text: p })));
  const rows = m.games.map((g) => el("tr", {}, el("td", {}, String(g.number), el("span", { class: "muted small", text: ` · ${t("round")} ${g.round}` })),
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
      el("ul", { class: "small" }, m.penalties.map((p) => el("li", { text: `${t("game")} ${p.game_number}, ${p.player}: ${p.note}` })))));
  }
  parts.push(el("div", { class: "row" },
    el("a", { class: "button", href: `/api/matches/${m.id}/export.csv`, download: "", text: t("export_csv") }),
    m.games.length ? el("button", { class: "secondary", text: t("undo_game"), onclick: undoGame }) : null));
  box.replaceChildren(...parts);
  timerReset();
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
  else $("#score-match").textContent = wanted === null ? t("no_match")
    : t("in_match", { name: currentMatch.name, game: currentMatch.next_game });
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
          await api("DELETE", `/api/matches/${m.id}`).catch(() => null);
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
  if (!players.length) { alert(t("players_needed")); return; }
  try {
    const match = await api("POST", "/api/matches", {
      name: $("#match-name").value.trim(), players, rounds: Number($("#match-rounds").value) || 1, rules: rulesFromForm(),
    });
    $("#match-new").open = false;
    store.set("timerPlayer", 0);
    await loadMatch(match.id);
    loadMatchList();
  } catch (error) { alert(error.message); }
}

async function undoGame() {
  if (!confirm(t("confirm_undo"))) return;
  try { currentMatch = await api("DELETE", `/api/matches/${currentMatch.id}/games/last`); renderMatch(); setupScorePlayers(); } catch (error) { alert(error.message); }
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
  try {
    const result = await api("POST", `/api/matches/${currentMatch.id}/penalties`, {
      player: timerPlayer(), touched_table: kind === "unfinished",
    });
    $("#timer-out").hidden = true;
    out.replaceChildren(el("p", { class: "banner bad", text: `${timerPlayer()}: ${result.penalty.message}` }));
    currentMatch = await api("GET", `/api/matches/${currentMatch.id}`);
    const keep = out.firstChild;
    renderMatch();
    out.replaceChildren(keep);
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
  // Another phone may have written to the sheet meanwhile: fetch it again (racks typed stay).
  if ((name === "score" || name === "match") && currentMatch) loadMatch(currentMatch.id);
  window.scrollTo(0, 0);
}

async function start() {
  applyStrings(document);
  document.documentElement.lang = LANG;
  $$(".slot").forEach(setupSlot);
  buildPicker();
  $("#table-check").addEventListener("click", (e) => busyButton(e.currentTarget, checkTable()));
  $("#turn-check").addEventListener("click", (e) => busyButton(e.currentTarget, checkTurn()));
  $("#score-go").addEventListener("click", (e) => busyButton(e.currentTarget, scoreGame(false)));
  $("#score-save").addEventListener("click", (e) => busyButton(e.currentTarget, scoreGame(true)));
  $("#score-add-player").addEventListener("click", () => {
    $("#score-players").append(scoreRow(t("player_n", { n: scorePlayers().length + 1 }), false));
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
  $("#live-close").addEventListener("click", closeLive);
  $("#live-shoot").addEventListener("click", shootLive);
  $$(".tabs button").forEach((b) => b.addEventListener("click", () => { history.replaceState(null, "", "#" + b.dataset.tab); showScreen(b.dataset.tab); }));
  window.addEventListener("hashchange", () => showScreen(location.hash.slice(1)));
  showScreen(location.hash.slice(1) || store.get("screen", "table"));

  try {
    serverInfo = await api("GET", "/api/health");
    if (!serverInfo.models_loaded) {
      $("#status").textContent = t("typed_only");
      $$(".screen").forEach((screen) => {
        const first = $(".slot", screen);
        if (first) first.before(el("p", { class: "note", text: t("offline_models", { reason: serverInfo.model_problem || "" }) }));
      });
    }
  } catch (error) { $("#status").textContent = error.message; }
  await loadMatch(store.get("match"));
  await loadDiceSheet();
  document.body.dataset.ready = "1";  // for the browser tests
}

document.addEventListener("DOMContentLoaded", start);
