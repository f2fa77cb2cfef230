/* Table Companion phone page: live scores and moves over Server-Sent Events; no build step. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
if (params.get("token")) localStorage.setItem("viewerToken", params.get("token"));
const viewerToken = params.get("token") || localStorage.getItem("viewerToken") || "";

const state = { game: null, moves: new Map(), source: null, board: null, rules: null, live: false };
const display = params.get("display") || "";
if (display === "table") document.body.classList.add("display-table");
const LAST_GAME = "lastGame";

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function withToken(path, token) {
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token || viewerToken);
}

async function api(path, options = {}, token = viewerToken) {
  const headers = Object.assign({ Authorization: "Bearer " + token }, options.headers || {});
  if (options.body && typeof options.body !== "string") {
    options.body = JSON.stringify(options.body);
    headers["Content-Type"] = "application/json";
  }
  const res = await fetch(path, Object.assign({}, options, { headers }));
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const detail = data && data.detail ? (typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)) : res.statusText;
    const err = new Error(detail);
    err.status = res.status;
    throw err;
  }
  return data;
}

function tableToken(forceAsk) {
  let token = localStorage.getItem("tableToken");
  if (!token || forceAsk) {
    token = (window.prompt("Table token (printed when the companion started):") || "").trim();
    if (token) localStorage.setItem("tableToken", token);
  }
  return token;
}

async function write(path, body) {
  const token = tableToken(false);
  if (!token) throw new Error("no table token given");
  try {
    return await api(path, { method: "POST", body }, token);
  } catch (err) {
    if (err.status === 401 || err.status === 403) localStorage.removeItem("tableToken");
    throw err;
  }
}

/* ---- rendering ---------------------------------------------------------------------------- */
function playerName(i) {
  if (!state.game || i === null || i === undefined) return "";
  return state.game.players[i] !== undefined ? state.game.players[i] : "Player " + (i + 1);
}

function renderGame() {
  const g = state.game;
  if (!g) return;
  $("#game-title").textContent = g.title || g.game;
  document.title = (g.title || g.game) + " · Table Companion";
  const turn = g.turn ? g.turn.player : null;
  // colour games score per colour; players (with their names) are what the table wants to see
  const perPlayer = Array.isArray(g.player_totals) && g.player_totals.length === g.players.length;
  const totals = perPlayer ? g.player_totals : g.totals;
  const named = totals.length === g.players.length;
  const labels = named ? g.players : totals.map((_, i) => (g.colours && g.colours[i]) || "Colour " + (i + 1));
  const pendingReveals = (g.reveals_pending || []).length > 0;
  $("#scoreboard").innerHTML = totals.map((pts, i) => {
    const isTurn = !g.ended && turn === i;
    const won = g.ended && (g.winner || []).includes(i);  // shown once no reveal is pending
    const move = g.turn && g.turn.colour ? `to move · ${g.turn.colour}` : g.turn && g.turn.replay ? "to move · replay" : "to move";
    const tag = isTurn ? move : won && !pendingReveals ? "winner" : "";
    return `<div class="score${isTurn ? " turn" : ""}" data-seat="${i}"><div class="name">${esc(labels[i] || "")}</div>` +
      `<div class="pts">${pts}</div><div class="tag">${tag}</div></div>`;
  }).join("");
  const colourLine = perPlayer && Array.isArray(g.colours) && g.colours.length === g.totals.length
    ? g.colours.map((c, i) => `${c} ${g.totals[i]}`).join(" · ") : "";
  $("#colour-totals").textContent = colourLine;
  $("#colour-totals").hidden = !colourLine;
  let status;
  if (g.ended) {
    const winners = (g.winner || []).map(playerName).join(" & ");
    const pending = (g.reveals_pending || []).map(playerName).join(", ");
    status = pending ? `Game over · waiting for reveals: ${pending}`
      : `Game over${winners ? " — " + winners + " win" + ((g.winner || []).length === 1 ? "s" : "") : ""}`;
  } else if (g.turn) {
    status = `${g.turn.name || playerName(g.turn.player) || g.turn.colour || "?"} to move` + (g.bag !== undefined ? ` · bag ${g.bag}` : "");
  } else {
    status = "waiting";
  }
  $("#status").textContent = status;
  renderWatch(g.watch);
  renderLast();
  const err = g.source_error;
  $("#notice").hidden = !err;
  if (err) $("#notice").textContent = "Camera problem: " + err;
  $("#export").href = withToken("/api/export.jsonl");
}

function describe(ev) {
  const t = ev.type === "illegal" ? ev.attempt : ev.type;
  if (t === "place") {
    if (Array.isArray(ev.tiles)) return ev.tiles.map((x) => `${x.square}=${x.wild ? "W" : ""}${x.value === null ? "?" : x.value}`).join(" ");
    if (ev.cells) return `${ev.colour || ""} ${Array.isArray(ev.cells) ? ev.cells.join(",") : ev.cells}`;
    if (ev.values) return `${ev.values.join("-")} at [${(ev.cell || []).join(", ")}]`;
    return "placed";
  }
  if (t === "exchange") return `exchanges ${ev.count}`;
  if (t === "pass") return "passes";
  if (t === "draw") return `draws ${ev.count || 1}`;
  if (t === "reveal") return "reveals " + (ev.values ? ev.values.join(", ") : (ev.tiles || []).join(", ")) ;
  if (t === "correct") return `corrects #${ev.target}${ownerOf(ev.target)}`;
  if (t === "undo") return `takes back #${ev.target}${ownerOf(ev.target)}`;
  return t;
}

function ownerOf(seq) {
  const target = state.moves.get(seq);
  if (!target) return "";
  const who = playerName(target.player) || target.colour || "";
  return who ? ` (${who}'s move)` : "";
}

function rulesOf(ev) {
  const ids = [];
  (ev.breakdown || []).forEach((b) => { ids.push(b.rule); if (b.multiplier) ids.push(b.multiplier.rule); });
  (ev.reasons || []).forEach((r) => ids.push(r.rule));
  return [...new Set(ids.filter(Boolean))];
}

function undoneSeqs() {
  const out = new Set();
  for (const ev of state.moves.values()) if (ev.type === "undo" && ev.legal) out.add(ev.target);
  return out;
}

function moveHtml(ev, undone) {
  const illegal = ev.type === "illegal";
  const who = (ev.type === "undo" || ev.type === "correct") && ev.player === null ? "" : playerName(ev.player) || ev.colour || "";
  const pts = illegal ? "illegal" : (ev.score > 0 ? "+" : "") + ev.score;
  let line2;
  if (illegal) {
    line2 = (ev.reasons || []).map((r) => `${esc(r.message)} <span class="rule">${esc(r.rule)}</span>`).join("; ");
  } else {
    line2 = (ev.breakdown || []).map((b) => `${esc(b.kind)} ${b.points}` + (b.multiplier ? ` ×${b.multiplier.factor}` : "") +
      ` <span class="rule">${esc(b.rule)}</span>` + (b.multiplier ? `<span class="rule">${esc(b.multiplier.rule)}</span>` : "")).join(" · ");
    if (!line2) line2 = ev.totals ? "totals " + ev.totals.join(" – ") : "";
  }
  return `<button class="move${illegal ? " illegal" : ""}${undone ? " undone" : ""}" data-seq="${ev.seq}">` +
    `<div class="line1"><span>#${ev.seq} ${esc(who)} · ${esc(describe(ev))}</span><span class="pts${illegal ? " neg" : ""}">${pts}</span></div>` +
    `<div class="line2">${line2}</div></button>`;
}

function renderMoves(freshSeq) {
  const list = $("#moves");
  const undone = undoneSeqs();
  const evs = [...state.moves.values()].sort((a, b) => b.seq - a.seq);
  list.innerHTML = evs.map((ev) => `<li>${moveHtml(ev, undone.has(ev.seq))}</li>`).join("");
  $("#empty").hidden = evs.length > 0;
  $("#move-count").textContent = evs.length ? `(${evs.length})` : "";
  if (freshSeq) {
    const el = list.querySelector(`[data-seq="${freshSeq}"]`);
    if (el) el.classList.add("fresh");
  }
}

function showDetail(seq) {
  const ev = state.moves.get(seq);
  if (!ev) return;
  $("#detail-title").textContent = `#${ev.seq} ${playerName(ev.player)} · ${describe(ev)}`;
  const hasPics = !!ev.evidence;
  $("#evidence").hidden = !hasPics;
  $("#ev-none").hidden = hasPics;
  document.querySelectorAll("#evidence figure").forEach((f) => { f.hidden = false; });
  if (hasPics) {
    const game = state.game ? `&game=${state.game.id}` : "";
    $("#ev-before").src = withToken(`/api/events/${seq}/evidence?which=before${game}`);
    $("#ev-after").src = withToken(`/api/events/${seq}/evidence?which=after${game}`);
  } else {
    $("#ev-before").removeAttribute("src");
    $("#ev-after").removeAttribute("src");
  }
  let html = "";
  if (ev.type === "illegal") {
    html += `<p><b>Not allowed</b> — nothing changed; the same player is still to move.</p>`;
    html += (ev.reasons || []).map((r) => `<div class="item bad"><span class="rule">${esc(r.rule)}</span> ${esc(r.message)}` +
      (r.cells && r.cells.length ? ` <span class="muted">(${r.cells.map((c) => esc(Array.isArray(c) ? "[" + c + "]" : c)).join(", ")})</span>` : "") + `</div>`).join("");
  } else {
    html += (ev.breakdown || []).map((b) => {
      const who = b.player !== undefined && b.player !== ev.player ? ` → ${esc(playerName(b.player))}` : "";
      const mult = b.multiplier ? ` · ×${b.multiplier.factor} on ${esc(b.multiplier.square)} <span class="rule">${esc(b.multiplier.rule)}</span>` : "";
      const cells = b.cells && b.cells.length ? ` ${b.cells.map((c) => esc(Array.isArray(c) ? "[" + c + "]" : c)).join(" ")}` : "";
      return `<div class="item"><b>${b.points > 0 ? "+" : ""}${b.points}</b> ${esc(b.kind)}${cells}${who} <span class="rule">${esc(b.rule)}</span>${mult}` +
        (b.detail ? `<div class="muted">${esc(b.detail)}</div>` : "") + `</div>`;
    }).join("");
    html += `<div class="sum">Score ${ev.score}${ev.totals ? " · totals " + ev.totals.join(" – ") : ""}</div>`;
    if (ev.rejudged && ev.rejudged.length) html += `<p class="muted">Re-judged: ${ev.rejudged.map((s) => "#" + s).join(", ")}</p>`;
  }
  const rules = rulesOf(ev);
  if (rules.length) html += `<p class="muted">Rules: ${rules.map((r) => `<span class="rule">${esc(r)}</span>`).join(" ")}</p>`;
  $("#verdict").innerHTML = html;
  openSheet("#detail");
}

/* a picture that cannot be loaded is left out, never shown broken */
["#ev-before", "#ev-after"].forEach((sel) => $(sel).addEventListener("error", () => {
  if (!$(sel).getAttribute("src")) return;
  $(sel).closest("figure").hidden = true;
  if ([...document.querySelectorAll("#evidence figure")].every((f) => f.hidden)) {
    $("#evidence").hidden = true;
    $("#ev-none").hidden = false;
  }
}));

/* ---- sheets ------------------------------------------------------------------------------- */
function openSheet(sel) { $(sel).hidden = false; }
function closeSheets() { document.querySelectorAll(".sheet").forEach((s) => { s.hidden = true; }); }
document.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", closeSheets));
document.querySelectorAll(".sheet").forEach((s) => s.addEventListener("click", (e) => { if (e.target === s) closeSheets(); }));
$("#moves").addEventListener("click", (e) => {
  if (e.target.closest(".rule")) return;  // a rule id explains itself (below)
  const btn = e.target.closest(".move");
  if (btn) showDetail(Number(btn.dataset.seq));
});

/* ---- live updates ------------------------------------------------------------------------- */
const EVENT_TYPES = ["place", "illegal", "exchange", "pass", "draw", "reveal", "correct", "undo"];

function onEvent(msg) {
  const ev = JSON.parse(msg.data);
  state.moves.set(ev.seq, ev);
  renderMoves(ev.seq);
  if (ev.type === "correct" || ev.type === "undo") refreshEvents();
}

async function refreshEvents() {
  try {
    const data = await api("/api/events");
    state.moves = new Map(data.events.map((e) => [e.seq, e]));
    renderMoves();
  } catch (err) { /* the stream will catch up */ }
}

function setLive(live) {
  state.live = live;
  $("#conn").className = live ? "conn on" : "conn off";
  document.body.classList.toggle("offline", !live);
  $("#connecting").hidden = live || !state.game;
  if (!live && !state.game) $("#status").textContent = "connecting…";
}

function gotGame(game) {
  state.game = game;
  try { localStorage.setItem(LAST_GAME, JSON.stringify(game)); } catch (e) { /* storage full or off */ }
  renderGame();
  loadBoard();
}

function connect() {
  if (state.source) state.source.close();
  const src = new EventSource(withToken("/api/stream"));
  state.source = src;
  src.onopen = () => setLive(true);
  src.onerror = () => {
    setLive(false);
    if (src.readyState === EventSource.CLOSED) {  // refused (e.g. an old token): say why
      api("/api/game").catch((err) => { if (err.status === 401 || err.status === 403) repair(err.message); });
    }
  };
  src.addEventListener("tokens", (msg) => { src.close(); repair(JSON.parse(msg.data).detail); });
  EVENT_TYPES.forEach((t) => src.addEventListener(t, onEvent));
  src.addEventListener("state", (msg) => { setLive(true); gotGame(JSON.parse(msg.data)); renderMoves(); });
  src.addEventListener("game", (msg) => {
    state.moves = new Map();
    gotGame(JSON.parse(msg.data));
    renderMoves();
  });
}

/* The table's tokens changed: this phone's are no good any more; it must pair again. */
function repair(detail) {
  localStorage.removeItem("viewerToken");
  localStorage.removeItem("tableToken");
  $("#conn").className = "conn off";
  $("#status").textContent = detail.charAt(0).toUpperCase() + detail.slice(1) + ".";
}

/* the last known scores while (re)connecting */
function showLastKnown() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(LAST_GAME) || "null"); } catch (e) { saved = null; }
  if (!saved || !Array.isArray(saved.totals)) return;
  state.game = saved;
  renderGame();
  setLive(false);
}

/* ---- the watch banner and the last move ---------------------------------------------------- */
function renderWatch(watch) {
  const box = $("#watch");
  if (!watch || watch.status === "ok") { box.hidden = true; box.className = "watch"; return; }
  const n = (watch.cells || []).length;
  const where = n ? ` · ${n} square${n === 1 ? "" : "s"}: ${watch.cells.slice(0, 6).map((c) => c.cell).join(", ")}${n > 6 ? "…" : ""}` : "";
  box.textContent = (watch.message || watch.status) + where;
  box.className = "watch " + watch.status;
  box.hidden = false;
}

function lastMove() {
  const evs = [...state.moves.values()].filter((e) => e.type !== "undo" && e.type !== "correct").sort((a, b) => b.seq - a.seq);
  const undone = undoneSeqs();
  return evs.find((e) => !undone.has(e.seq)) || null;
}

function renderLast() {
  const box = $("#last");
  const ev = lastMove();
  if (!ev) { box.hidden = true; return; }
  const who = playerName(ev.player) || ev.colour || "";
  const pts = ev.type === "illegal" ? "not allowed" : (ev.score > 0 ? "+" : "") + ev.score;
  const items = ev.type === "illegal"
    ? (ev.reasons || []).map((r) => `${esc(r.message)} <span class="rule">${esc(r.rule)}</span>`).join("; ")
    : (ev.breakdown || []).map((b) => `${esc(b.kind)} ${b.points > 0 ? "+" : ""}${b.points}` +
        (b.multiplier ? ` ×${b.multiplier.factor}` : "") + ` <span class="rule">${esc(b.rule)}</span>` +
        (b.multiplier ? `<span class="rule">${esc(b.multiplier.rule)}</span>` : "")).join(" · ");
  box.innerHTML = `<div class="what">Last move: ${esc(who)} · ${esc(describe(ev))} · ${pts}</div>` +
    (items ? `<div class="items">${items}</div>` : "");
  box.hidden = false;
}

/* ---- rule ids explained -------------------------------------------------------------------- */
async function rules() {
  if (state.rules) return state.rules;
  try { state.rules = await (await fetch("/static/rules.json")).json(); } catch (e) { state.rules = {}; }
  return state.rules;
}

async function explainRule(id) {
  const all = await rules();
  const rule = all[id];
  $("#rule-title").textContent = id;
  $("#rule-game").textContent = rule && rule.game ? rule.game : "";
  $("#rule-text").textContent = rule ? rule.text : "This rule is not in the rule book shipped with this page.";
  closeSheets();
  openSheet("#rule");
}

document.addEventListener("click", (e) => {
  const chip = e.target.closest(".rule");
  if (!chip) return;
  e.preventDefault();
  e.stopPropagation();
  explainRule(chip.textContent.trim());
}, true);

/* ---- the board: the record's squares, the differing ones marked; tap to fix ----------------- */
const T_DOUBLE = "H8 D8 L8 H4 H12 E5 K5 E11 K11".split(" ");  // RULES T-B2
const T_TRIPLE = "E2 K2 E14 K14 B5 N5 B11 N11".split(" ");
const T_REPLAY = "A8 O8 H1 H15 B2 N2 B14 N14".split(" ");
const COLOURS = { blue: "#2f6fd6", yellow: "#e3b81f", red: "#d43d2f", green: "#2e9a4e", purple: "#7a48c0", orange: "#e6821e" };
let boardTimer = null;

function loadBoard() {
  if (boardTimer) return;
  boardTimer = setTimeout(async () => {
    boardTimer = null;
    try { state.board = await api("/api/board"); renderBoard(); } catch (e) { /* the next state message retries */ }
  }, 60);
}

function lies(x) {
  if (!x) return "";
  if (x.colour) return x.colour;
  if (x.values) return x.values.join("-");
  if (x.wild) return "W" + (x.value === null || x.value === undefined ? "" : x.value);
  return String(x.value);
}

function boardCells() {
  const b = state.board;
  const cells = new Map();
  b.cells.forEach((c) => cells.set(c.cell, { cell: c.cell, record: c.record, seq: c.seq, diff: null }));
  (b.watch.status === "differs" ? b.watch.cells : []).forEach((d) => {
    const c = cells.get(d.cell) || { cell: d.cell, record: d.record, seq: null, diff: null };
    c.diff = d;
    cells.set(d.cell, c);
  });
  return cells;
}

function words(x) {
  if (!x) return "nothing";
  if (x.colour) return x.colour;
  if (x.values) return "the tile " + x.values.join("-");
  if (x.wild) return "a wild" + (x.value === null || x.value === undefined ? "" : " as " + x.value);
  return "a " + x.value;
}

function cellTitle(c) {
  let t = `${c.cell}: ${c.record ? words(c.record) : "empty"} in the record`;
  if (c.seq) t += ` (move #${c.seq})`;
  if (c.diff) t += `; the camera sees ${words(c.diff.seen)}` + (c.diff.fixed ? `; you said ${words(c.diff.fix)}` : "");
  return t;
}

function renderBoard() {
  const b = state.board;
  const section = $("#board-section");
  if (!b || b.layout === "none") { section.hidden = true; return; }
  section.hidden = false;
  const cells = boardCells();
  const box = $("#board");
  if (b.layout === "squares") {
    const n = b.size || 15;
    let html = "";
    for (let r = 1; r <= n; r++) {
      for (let col = 0; col < n; col++) {
        const name = String.fromCharCode(65 + col) + r;
        const c = cells.get(name);
        const cls = ["cell"];
        if (T_DOUBLE.includes(name)) cls.push("x2"); else if (T_TRIPLE.includes(name)) cls.push("x3"); else if (T_REPLAY.includes(name)) cls.push("again");
        let text = "";
        let seen = "";
        if (c && c.record) { cls.push("tile"); if (c.record.wild) cls.push("wild"); text = lies(c.record); }
        if (c && c.diff) {
          cls.push("differs");
          if (c.diff.fixed) cls.push("fixed");
          const shown = c.diff.fixed ? c.diff.fix : c.diff.seen;
          if (c.record) seen = `<span class="seen">${esc(shown ? lies(shown) : "·")}</span>`;
          else { cls.push("new"); text = shown ? lies(shown) : ""; }  // what the camera (or a tap) says lies there
        }
        html += `<button class="${cls.join(" ")}" data-cell="${name}" title="${esc(c ? cellTitle(c) : name)}">${esc(text)}${seen}</button>`;
      }
    }
    box.className = "board grid";
    box.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
    box.innerHTML = html;
  } else {
    const chips = (list) => list.map((c) => {
      const shown = c.diff ? (c.diff.fixed ? c.diff.fix : c.diff.seen) : null;
      const dot = (x) => (x && x.colour ? `<i style="background:${COLOURS[x.colour] || "#888"}"></i>` : "");
      const label = b.layout === "colours"
        ? `${dot(c.record)}${esc(c.cell)}${c.diff ? " → " + dot(shown) + esc(shown ? shown.colour : "empty") : ""}`
        : `[${esc(c.cell)}] ${esc(c.record ? lies(c.record) : "")}${c.diff ? " → " + esc(shown ? lies(shown) : "empty") : ""}`;
      return `<button class="cell${c.diff ? " differs" : ""}${c.diff && c.diff.fixed ? " fixed" : ""}" data-cell="${esc(c.cell)}" title="${esc(cellTitle(c))}">${label}</button>`;
    }).join("");
    const all = [...cells.values()];
    const diffs = all.filter((c) => c.diff);
    const rest = all.filter((c) => !c.diff);
    box.className = "board chips";
    box.style.gridTemplateColumns = "";
    box.innerHTML = (diffs.length ? `<h4>Differs from the record</h4>${chips(diffs)}` : "") +
      (rest.length ? `<h4>On the board</h4>${chips(rest)}` : "") + (all.length ? "" : `<p class="muted">Nothing on the board yet.</p>`);
  }
  const differs = b.watch.status === "differs" && b.watch.cells.length > 0;
  $("#accept").hidden = !differs;
  $("#undo-last").disabled = !b.last_move;
}

let picking = null;

function openPicker(name) {
  const b = state.board;
  const c = boardCells().get(name) || { cell: name, record: null, seq: null, diff: null };
  picking = c;
  $("#picker-title").textContent = b.layout === "tiles" ? `Tile at [${name}]` : `Square ${name}`;
  $("#picker-info").textContent = cellTitle(c) + ". What really lies there?";
  $("#picker-error").hidden = true;
  const now = c.diff ? (c.diff.fixed ? c.diff.fix : c.diff.seen) : c.record;
  let html = "";
  if (b.layout === "squares") {
    const wild = !!(c.record && c.record.wild);  // a misread wild must not stick: the player says so
    html += `<button type="button" class="span${wild ? " on" : ""}" data-wild="1" aria-pressed="${wild}">Wild${wild ? " ✓" : ""} — then pick its value</button>`;
    for (let v = 0; v <= 15; v++) html += `<button type="button" data-value="${v}" class="${now && now.value === v ? "on" : ""}">${v}</button>`;
  } else if (b.layout === "colours") {
    html += (b.colours || []).map((col) => `<button type="button" data-colour="${col}" style="color:${COLOURS[col] || "inherit"}">${col}</button>`).join("");
  } else {
    const v = now && now.values ? now.values : [0, 0, 0];
    html += [0, 1, 2].map((i) => `<select aria-label="corner ${i + 1}" data-corner="${i}">${[0, 1, 2, 3, 4, 5].map((x) => `<option${x === v[i] ? " selected" : ""}>${x}</option>`).join("")}</select>`).join("");
    html += `<button type="button" data-values="1">Set</button>`;
  }
  html += `<button type="button" class="span" data-clear="1">Nothing lies there</button>`;
  $("#picker-choices").innerHTML = html;
  closeSheets();
  openSheet("#picker");
}

async function sendTap(set) {
  const errBox = $("#picker-error");
  try {
    const res = await write("/api/board/cell", { cell: picking.cell, set });
    if (res.event && res.event.type === "illegal") {
      errBox.textContent = "Not allowed: " + (res.event.reasons || []).map((r) => `${r.message} (${r.rule})`).join("; ");
      errBox.hidden = false;
      return;
    }
    if (res.board) { state.board = res.board; renderBoard(); }
    $("#board-msg").textContent = res.done === "correct" ? `Move #${res.event.target} corrected.` : `${picking.cell} set.`;
    closeSheets();
  } catch (err) {
    errBox.textContent = err.message;
    errBox.hidden = false;
  }
}

$("#board").addEventListener("click", (e) => {
  const btn = e.target.closest("[data-cell]");
  if (btn) openPicker(btn.dataset.cell);
});

$("#picker-choices").addEventListener("click", (e) => {
  const btn = e.target.closest("button");
  if (!btn) return;
  if (btn.dataset.wild) {
    const on = !btn.classList.contains("on");
    btn.classList.toggle("on", on);
    btn.setAttribute("aria-pressed", String(on));
    btn.textContent = on ? "Wild ✓ — then pick its value" : "Wild — then pick its value";
    return;
  }
  if (btn.dataset.clear) { sendTap(null); return; }
  if (btn.dataset.value !== undefined) {
    const wild = $("#picker-choices [data-wild]").classList.contains("on");
    sendTap({ value: Number(btn.dataset.value), wild });
  } else if (btn.dataset.colour) {
    sendTap({ colour: btn.dataset.colour });
  } else if (btn.dataset.values) {
    const values = [...document.querySelectorAll("#picker-choices [data-corner]")].map((s) => Number(s.value));
    sendTap({ values });
  }
});

function moveOutcome(res) {
  if (res && res.type === "illegal") return "Not allowed: " + (res.reasons || []).map((r) => `${r.message} (${r.rule})`).join("; ");
  return "";
}

$("#accept").addEventListener("click", async () => {
  const msg = $("#board-msg");
  try {
    const res = await write("/api/board/accept", {});
    msg.textContent = moveOutcome(res) || `Accepted as move #${res.seq} (${playerName(res.player) || res.colour || ""}, ${res.score > 0 ? "+" : ""}${res.score}).`;
  } catch (err) { msg.textContent = err.message; }
});

$("#undo-last").addEventListener("click", async () => {
  const msg = $("#board-msg");
  const last = state.board && state.board.last_move;
  const ev = last ? state.moves.get(last) : null;
  const what = ev ? `#${last} ${playerName(ev.player) || ev.colour || ""} · ${describe(ev)}` : `#${last}`;
  if (!window.confirm(`Take back the last move (${what})?`)) return;
  try {
    const res = await write("/api/board/undo", {});
    msg.textContent = moveOutcome(res) || `Move #${res.target} taken back.`;
  } catch (err) { msg.textContent = err.message; }
});

/* ---- actions ------------------------------------------------------------------------------ */
const FIELDS = {
  exchange: ["player", "count"], pass: ["player"], reveal: ["player", "values"],
  wild: ["seq", "square", "value"], correct: ["howto"], undo: ["move"],
};
const TITLES = { exchange: "Exchange tiles", pass: "Pass", reveal: "Reveal a rack", wild: "Declare a wild's value",
  correct: "Correct a move", undo: "Take back a move" };
let currentAction = null;

function openAction(kind) {
  currentAction = kind;
  $("#action-title").textContent = TITLES[kind];
  const form = $("#action-form");
  form.querySelectorAll("[data-field]").forEach((l) => { l.hidden = !FIELDS[kind].includes(l.dataset.field); });
  const sel = form.elements.player;
  const players = state.game ? state.game.players : [];
  sel.innerHTML = players.map((p, i) => `<option value="${i}">${esc(p)}</option>`).join("");
  if (state.game && state.game.turn && state.game.turn.player !== null) sel.value = String(state.game.turn.player);
  const last = Math.max(0, ...state.moves.keys());
  if (last) form.elements.seq.value = String(last);
  const undone = undoneSeqs();
  const standing = [...state.moves.values()].filter((ev) => ev.type !== "illegal" && ev.type !== "undo" && ev.type !== "correct" && !undone.has(ev.seq))
    .sort((a, b) => b.seq - a.seq);
  form.elements.move.innerHTML = standing.map((ev) => `<option value="${ev.seq}">#${ev.seq} ${esc(playerName(ev.player) || ev.colour || "")} · ${esc(describe(ev))}</option>`).join("");
  form.querySelector("button[type=submit]").textContent = kind === "correct" ? "Show the board" : kind === "undo" ? "Take it back" : "Send";
  $("#action-error").hidden = true;
  openSheet("#action");
}

function actionBody(kind, f) {
  const player = Number(f.player.value);
  if (kind === "exchange") return { type: "exchange", player, count: Number(f.count.value) };
  if (kind === "pass") return { type: "pass", player };
  if (kind === "reveal") {
    const values = f.values.value.split(/[ ,]+/).filter((v) => v !== "").map(Number);
    return { type: "reveal", player, values };
  }
  if (kind === "wild") return { type: "wild", seq: Number(f.seq.value), square: f.square.value.trim().toUpperCase(), value: Number(f.value.value) };
  throw new Error("unknown action");
}

$("#action-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const errBox = $("#action-error");
  if (currentAction === "correct") {
    closeSheets();
    $("#board-section").scrollIntoView({ behavior: "smooth" });
    return;
  }
  try {
    const res = currentAction === "undo"
      ? await write("/api/board/undo", e.target.elements.move.value ? { seq: Number(e.target.elements.move.value) } : {})
      : await write("/api/events", actionBody(currentAction, e.target.elements));
    if (res && res.type === "illegal") {
      errBox.textContent = "Not allowed: " + (res.reasons || []).map((r) => `${r.message} (${r.rule})`).join("; ");
      errBox.hidden = false;
      return;
    }
    closeSheets();
  } catch (err) {
    errBox.textContent = err.message;
    errBox.hidden = false;
  }
});

document.querySelectorAll("[data-action]").forEach((b) => b.addEventListener("click", () => {
  const kind = b.dataset.action;
  if (kind === "more") openSheet("#more"); else openAction(kind);
}));

$("#new-game").addEventListener("click", async () => {
  if (!window.confirm("Start a new game? The current one is kept in the history.")) return;
  try { await write("/api/games", {}); closeSheets(); } catch (err) { window.alert(err.message); }
});
$("#show-history").addEventListener("click", async () => {
  const list = $("#history");
  try {
    const data = await api("/api/games");
    list.innerHTML = data.games.map((g) => `<li><a href="${withToken("/api/export.jsonl?game=" + g.id)}" download>` +
      `#${g.id} ${esc(g.game)} · ${esc((g.players || []).join(", "))}</a> <span class="muted">${esc(g.status)}, ` +
      `${g.events} events, ${new Date(g.created * 1000).toLocaleString()}${g.current ? " · now" : ""}</span></li>`).join("");
  } catch (err) { list.innerHTML = `<li class="error">${esc(err.message)}</li>`; }
  list.hidden = false;
});
$("#forget-token").addEventListener("click", () => { localStorage.removeItem("tableToken"); closeSheets(); });
$("#show-pair").addEventListener("click", () => { $("#pair-img").src = withToken("/api/pair"); });
$("#pair-img").addEventListener("load", () => { $("#pair-img").hidden = false; });

/* ---- board corners on a still ------------------------------------------------------------- */
let corners = [];
function drawCorners() {
  const img = $("#still");
  const svg = $("#corner-marks");
  const w = img.naturalWidth || 1, h = img.naturalHeight || 1;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const pts = corners.map((c) => c.join(",")).join(" ");
  svg.innerHTML = (corners.length > 1 ? `<polygon points="${pts}" fill="rgba(255,140,0,.12)" stroke="#ff8c00" stroke-width="${w / 150}"/>` : "") +
    corners.map((c, i) => `<circle cx="${c[0]}" cy="${c[1]}" r="${w / 60}" fill="#ff8c00"/><text x="${c[0] + w / 50}" y="${c[1]}" font-size="${w / 25}" fill="#ff8c00">${i + 1}</text>`).join("");
  $("#corners-save").disabled = corners.length !== 4;
}
$("#show-corners").addEventListener("click", async () => {
  closeSheets();
  corners = [];
  $("#corners-msg").textContent = "";
  $("#still").src = withToken("/api/still") + "&t=" + Date.now();
  try { const saved = await api("/api/corners"); if (saved.corners_px) corners = saved.corners_px; } catch (e) { /* none yet */ }
  openSheet("#corners");
});
$("#still").addEventListener("load", () => { $("#still").hidden = false; drawCorners(); });
$("#still").addEventListener("error", () => {  // no frame yet: say so rather than show a broken image
  $("#still").hidden = true;
  $("#corners-msg").textContent = "No picture of the table yet.";
});
$("#still").addEventListener("click", (e) => {
  const img = e.target;
  if (corners.length >= 4) return;
  const r = img.getBoundingClientRect();
  const x = (e.clientX - r.left) * img.naturalWidth / r.width;
  const y = (e.clientY - r.top) * img.naturalHeight / r.height;
  corners.push([Math.round(x), Math.round(y)]);
  drawCorners();
});
$("#corners-reset").addEventListener("click", () => { corners = []; drawCorners(); });
$("#corners-save").addEventListener("click", async () => {
  try { await write("/api/corners", { corners }); $("#corners-msg").textContent = "Saved."; }
  catch (err) { $("#corners-msg").textContent = err.message; }
});

/* ---- start -------------------------------------------------------------------------------- */
if (!viewerToken) {
  $("#status").textContent = "Open the link printed by `companion serve` (it carries the viewer token).";
} else {
  showLastKnown();
  connect();
}
