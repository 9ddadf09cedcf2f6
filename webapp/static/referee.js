// The "Referee" screen: a phone on a stand streams its rear camera to the server (one JPEG every
// half second) and shows each turn's verdict as it happens; the history steps back through the game.
// Talks only to /api/referee (webapp/follow_api.py). Adds its own tab and screen to the page.
"use strict";

(() => {
  const FRAME_MS = 500;
  const FRAME_WIDTH = 960;
  let S = {};  // the screen's words (GET /api/referee/strings)
  let game = null;  // {id, names}
  let stream = null;
  let timer = null;
  let busy = false;
  let started = 0;
  let history = [];
  let at = -1;

  const q = (sel, root = document) => root.querySelector(sel);
  function make(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
    return node;
  }
  function w(key, params) {
    let text = S[key] || key;
    for (const [n, v] of Object.entries(params || {})) text = text.split(`{${n}}`).join(String(v));
    return text;
  }
  async function call(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
    const r = await fetch(path, init);
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.detail || `${r.status} ${r.statusText}`);
    return data;
  }

  // The screen and its tab, added before the page's own start-up wires the tabs.
  function build() {
    const section = make("section", { id: "screen-referee", class: "screen", "data-screen": "referee", hidden: true },
      make("h2", { id: "ref-title" }),
      make("p", { class: "hint", id: "ref-hint" }),
      make("div", { id: "ref-setup" },
        make("label", { class: "field" }, make("span", { id: "ref-players-label" }),
          make("textarea", { id: "ref-names", rows: "3", spellcheck: "false", text: "Ann\nBob" })),
        make("label", { class: "field" }, make("span", { id: "ref-rules-label" }),
          make("select", { id: "ref-rules" }, make("option", { value: "classic" }), make("option", { value: "spanish" }))),
        make("button", { class: "primary", id: "ref-start" })),
      make("div", { id: "ref-live", hidden: true },
        make("video", { id: "ref-video", autoplay: true, playsinline: true, muted: true, class: "ref-video" }),
        make("p", { id: "ref-status", class: "note", role: "status" }),
        make("div", { class: "row" }, make("button", { class: "secondary", id: "ref-drew" }),
          make("button", { class: "secondary", id: "ref-stop" }))),
      make("div", { id: "ref-verdicts", class: "result", "aria-live": "polite" }),
      make("h3", { id: "ref-history-title", hidden: true }),
      make("div", { id: "ref-history", class: "ref-history", hidden: true },
        make("img", { id: "ref-photo", alt: "" }),
        make("p", { id: "ref-caption" }),
        make("div", { class: "row" }, make("button", { class: "secondary", id: "ref-back" }),
          make("button", { class: "secondary", id: "ref-forward" }))),
      make("details", { id: "ref-end" }, make("summary", { id: "ref-end-title" }),
        make("p", { class: "hint", id: "ref-racks-hint" }),
        make("div", { id: "ref-racks" }),
        make("label", { class: "field" }, make("span", { id: "ref-winner-label" }), make("select", { id: "ref-winner" })),
        make("label", { class: "field" }, make("span", { id: "ref-match-label" }), make("select", { id: "ref-match" })),
        make("button", { class: "primary", id: "ref-score" }),
        make("div", { id: "ref-score-result", class: "result" })));
    q("main").append(section);
    const tab = make("button", { "data-tab": "referee" }, make("span", { class: "ico", text: "◉" }), make("span", { id: "ref-tab" }));
    q("nav.tabs").append(tab);
  }

  async function words() {
    try { S = await call("GET", "/api/referee/strings"); } catch (e) { S = {}; }
    const set = (id, key) => { const n = q("#" + id); if (n) n.textContent = w(key); };
    set("ref-tab", "tab"); set("ref-title", "title"); set("ref-hint", "hint"); set("ref-players-label", "players");
    set("ref-rules-label", "rules"); set("ref-start", "start"); set("ref-stop", "stop"); set("ref-drew", "drew_button"); set("ref-history-title", "history");
    set("ref-back", "back"); set("ref-forward", "forward"); set("ref-end-title", "end"); set("ref-racks-hint", "racks");
    set("ref-winner-label", "winner"); set("ref-score", "score"); set("ref-match-label", "match");
    const opts = q("#ref-rules").options; opts[0].textContent = w("classic"); opts[1].textContent = w("spanish");
  }

  function alertViolation() {
    // A buzz on phones that have it, and a short beep everywhere.
    if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
    try {
      const ctx = new (window.AudioContext || window.webkitAudioContext)();
      const osc = ctx.createOscillator();
      osc.frequency.value = 880; osc.connect(ctx.destination); osc.start(); osc.stop(ctx.currentTime + 0.25);
    } catch (e) { /* no sound: the red card still shows */ }
  }

  function turnCard(turn) {
    const ok = turn.ok;
    // verdict: "ok", "violation" or "check_by_hand" (no violation called, but not checked in full).
    const verdict = turn.verdict || (ok ? "ok" : "violation");
    const head = turn.kind === "draw" ? w("drew", { player: turn.player })
      : w({ ok: "turn_ok", violation: "turn_bad", check_by_hand: "turn_check" }[verdict],
        { number: turn.number, player: turn.player });
    const lines = [];
    if (turn.laid.length) lines.push(w("laid", { tiles: turn.laid.join(" ") }));
    if (turn.moved.length) lines.push(w("moved", { tiles: turn.moved.join(" ") }));
    if (turn.missing.length) lines.push(w("missing", { tiles: turn.missing.join(" ") }));
    if (turn.check_by_hand) lines.push(turn.check_message || w("check", { tiles: turn.unsure.join(" ") }));
    const look = { ok: "ok", violation: "bad", check_by_hand: "check" }[verdict];
    return make("div", { class: "ref-card " + look, "data-turn": turn.number, "data-ok": ok ? "1" : "0",
      "data-verdict": verdict },
      make("strong", { text: head }),
      lines.map((l) => make("div", { text: l })),
      turn.violations.map((v) => make("div", { class: "violation", "data-code": v.code, text: v.message })),
      turn.consequence ? make("div", { class: "consequence", text: turn.consequence }) : null,
      make("div", { class: "table-line", text: turn.table }));
  }

  function showUpdates(updates) {
    const box = q("#ref-verdicts");
    for (const u of updates) {
      if (u.turn) {
        box.prepend(turnCard(u.turn));
        if (!u.turn.ok) alertViolation();
      } else if (u.event) {
        box.prepend(make("div", { class: "ref-event", "data-kind": u.event.kind, text: u.event.message }));
      }
    }
  }

  async function sendFrame() {
    const video = q("#ref-video");
    if (busy || !game || !video.videoWidth) return;
    busy = true;
    try {
      const scale = Math.min(1, FRAME_WIDTH / video.videoWidth);
      const canvas = make("canvas");
      canvas.width = Math.round(video.videoWidth * scale);
      canvas.height = Math.round(video.videoHeight * scale);
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
      const form = new FormData();
      form.append("frame", blob, "frame.jpg");
      form.append("t", String((performance.now() - started) / 1000));
      const out = await call("POST", `/api/referee/games/${game.id}/frame`, form);
      showUpdates(out.updates);
      q("#ref-status").textContent = out.state.watching ? w("next", { player: out.state.next_player }) + " · " + w("frames", { count: out.state.frames })
        : w("waiting");
      q("#screen-referee").dataset.frames = String(out.state.frames);
      if (out.updates.length) await loadHistory(true);
    } catch (e) {
      q("#ref-status").textContent = e.message;
    } finally { busy = false; }
  }

  // A tile drawn from a pool the camera does not see: the camera cannot tell it, a person does.
  async function drew() {
    if (!game) return;
    try {
      const out = await call("POST", `/api/referee/games/${game.id}/draw`, { t: (performance.now() - started) / 1000 });
      showUpdates(out.updates);
      q("#ref-status").textContent = w("next", { player: out.state.next_player });
      await loadHistory(true);
    } catch (e) {
      q("#ref-status").textContent = e.message;
    }
  }

  async function start() {
    const names = q("#ref-names").value.split("\n").map((s) => s.trim()).filter(Boolean);
    try {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw new Error(w("no_camera"));
      game = await call("POST", "/api/referee/games", { names, rules: q("#ref-rules").value });
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 } }, audio: false });
      q("#ref-video").srcObject = stream;
      started = performance.now();
      q("#ref-setup").hidden = true;
      q("#ref-live").hidden = false;
      q("#ref-status").textContent = w("waiting");
      q("#ref-verdicts").replaceChildren();
      q("#ref-racks").replaceChildren(...game.names.map((n) => make("div", { class: "field" },
        make("label", {}, make("span", { text: n }), make("input", { "data-player": n, spellcheck: "false", placeholder: "R4 K9 J" })),
        make("label", { class: "button" }, make("input", { type: "file", accept: "image/*", capture: "environment", hidden: true,
          "data-rack-photo": n, onchange: readRack }), make("span", { text: w("rack_photo") })))));
      loadMatches();
      q("#ref-winner").replaceChildren(make("option", { value: "", text: w("nobody") }),
        ...game.names.map((n) => make("option", { value: n, text: n })));
      timer = setInterval(sendFrame, FRAME_MS);
      q("#screen-referee").dataset.game = game.id;
    } catch (e) {
      q("#ref-verdicts").replaceChildren(make("p", { class: "error", text: e.message }));
    }
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    if (stream) stream.getTracks().forEach((tr) => tr.stop());
    stream = null;
    q("#ref-live").hidden = true;
    q("#ref-setup").hidden = false;
  }

  async function loadHistory(toEnd) {
    if (!game) return;
    const data = await call("GET", `/api/referee/games/${game.id}`);
    history = data.history;
    if (toEnd || at < 0) at = history.length - 1;
    showState();
  }

  function showState() {
    const entry = history[at];
    if (!entry) return;
    q("#ref-history").hidden = false;
    q("#ref-history-title").hidden = false;
    q("#ref-photo").src = entry.photo ? `/api/referee/games/${game.id}/photo/${entry.index}` : "";
    const verdict = entry.verdict && entry.verdict.violations && entry.verdict.violations.length
      ? " — " + entry.verdict.violations.map((v) => v.message).join(" ") : "";
    q("#ref-caption").textContent = `${w("state_n", { index: at + 1, count: history.length })} · ${entry.t}s · ${entry.table}${verdict}`;
    q("#ref-history").dataset.at = String(at);
  }

  // A photo of a rack, read by the app's own reader (POST /api/photo/read, mode "rack").
  async function readRack(e) {
    const file = e.target.files[0];
    const player = e.target.dataset.rackPhoto;
    if (!file) return;
    const form = new FormData();
    form.append("photo", file);
    form.append("mode", "rack");
    const input = q(`#ref-racks input[data-player="${player}"]`);
    try {
      const reading = await call("POST", "/api/photo/read", form);
      const codes = reading.rack.map((i) => reading.tiles[i].tile).filter((c) => c !== "?");
      input.value = codes.join(" ");
    } catch (err) { q("#ref-score-result").replaceChildren(make("p", { class: "error", text: err.message })); }
  }

  // Match sheets with exactly these players: the game can go onto one of them.
  async function loadMatches() {
    const select = q("#ref-match");
    select.replaceChildren(make("option", { value: "", text: w("no_match") }));
    try {
      const data = await call("GET", "/api/matches");
      const same = (m) => m.players.length === game.names.length && m.players.every((p) => game.names.includes(p));
      data.matches.filter((m) => same(m) && m.next_game !== null)
        .forEach((m) => select.append(make("option", { value: String(m.id), text: m.name })));
    } catch (err) { /* no sheets: scoring still works */ }
  }

  async function scoreGame() {
    const racks = {};
    document.querySelectorAll("#ref-racks input").forEach((i) => { racks[i.dataset.player] = i.value; });
    const out = q("#ref-score-result");
    try {
      const winner = q("#ref-winner").value || null;
      const res = await call("POST", `/api/referee/games/${game.id}/end`, { racks, winner });
      stop();
      out.replaceChildren(make("pre", { text: res.describe }));
      const match = q("#ref-match").value;
      if (match) {
        const added = await call("POST", `/api/matches/${match}/games`, { racks, winner });
        out.append(make("p", { class: "note", text: w("on_sheet", { name: added.match.name }) }));
      }
    } catch (e) { out.replaceChildren(make("p", { class: "error", text: e.message })); }
  }

  build();
  document.addEventListener("DOMContentLoaded", () => {
    words();
    q("#ref-start").addEventListener("click", start);
    q("#ref-stop").addEventListener("click", stop);
    q("#ref-drew").addEventListener("click", drew);
    q("#ref-back").addEventListener("click", () => { if (at > 0) { at -= 1; showState(); } });
    q("#ref-forward").addEventListener("click", () => { if (at < history.length - 1) { at += 1; showState(); } });
    q("#ref-score").addEventListener("click", scoreGame);
  });
})();
