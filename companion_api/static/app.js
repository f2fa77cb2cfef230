/* Table Companion phone page: live scores and moves over Server-Sent Events; no build step. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
if (params.get("token")) localStorage.setItem("viewerToken", params.get("token"));
const viewerToken = params.get("token") || localStorage.getItem("viewerToken") || "";

const state = { game: null, moves: new Map(), source: null };

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
  const best = Math.max(...g.totals);
  const cols = g.totals.length === g.players.length ? g.players : g.totals.map((_, i) => "Colour " + (i + 1));
  $("#scoreboard").innerHTML = g.totals.map((pts, i) => {
    const isTurn = !g.ended && turn === i;
    const won = g.ended && (g.winner || []).includes(i);
    const tag = isTurn ? (g.turn.replay ? "to move · replay" : "to move") : won ? "winner" : "";
    return `<div class="score${isTurn ? " turn" : ""}" data-seat="${i}"><div class="name">${esc(cols[i] || "")}</div>` +
      `<div class="pts">${pts}</div><div class="tag">${tag}</div></div>`;
  }).join("");
  let status;
  if (g.ended) {
    const winners = (g.winner || []).map(playerName).join(" & ");
    const pending = (g.reveals_pending || []).map(playerName).join(", ");
    status = `Game over${g.end_rule ? " (" + g.end_rule + ")" : ""}${winners ? " — " + winners + (pending ? " leads" : " wins") : ""}` +
      (pending ? ` · waiting for reveals: ${pending}` : "");
  } else if (g.turn) {
    status = `${g.turn.name || playerName(g.turn.player) || g.turn.colour || "?"} to move` + (g.bag !== undefined ? ` · bag ${g.bag}` : "");
  } else {
    status = "waiting";
  }
  $("#status").textContent = status;
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
  if (t === "correct") return `corrects #${ev.target}`;
  if (t === "undo") return `takes back #${ev.target}`;
  return t;
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
  const who = playerName(ev.player) || ev.colour || "";
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

/* ---- sheets ------------------------------------------------------------------------------- */
function openSheet(sel) { $(sel).hidden = false; }
function closeSheets() { document.querySelectorAll(".sheet").forEach((s) => { s.hidden = true; }); }
document.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", closeSheets));
document.querySelectorAll(".sheet").forEach((s) => s.addEventListener("click", (e) => { if (e.target === s) closeSheets(); }));
$("#moves").addEventListener("click", (e) => {
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

function connect() {
  if (state.source) state.source.close();
  const src = new EventSource(withToken("/api/stream"));
  state.source = src;
  src.onopen = () => { $("#conn").className = "conn on"; };
  src.onerror = () => {
    $("#conn").className = "conn off";
    if (src.readyState === EventSource.CLOSED) {  // refused (e.g. an old token): say why
      api("/api/game").catch((err) => { if (err.status === 401 || err.status === 403) repair(err.message); });
    }
  };
  src.addEventListener("tokens", (msg) => { src.close(); repair(JSON.parse(msg.data).detail); });
  EVENT_TYPES.forEach((t) => src.addEventListener(t, onEvent));
  src.addEventListener("state", (msg) => { state.game = JSON.parse(msg.data); renderGame(); renderMoves(); });
  src.addEventListener("game", (msg) => {
    state.game = JSON.parse(msg.data);
    state.moves = new Map();
    renderGame();
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

/* ---- actions ------------------------------------------------------------------------------ */
const FIELDS = {
  exchange: ["player", "count"], pass: ["player"], reveal: ["player", "values"],
  wild: ["seq", "square", "value"], correct: ["seq", "event"], undo: ["seq"],
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
  if (kind === "undo") return { type: "undo", seq: Number(f.seq.value) };
  if (kind === "correct") {
    let event;
    try { event = JSON.parse(f.event.value); } catch (e) { throw new Error("the corrected event is not valid JSON"); }
    return { type: "correct", seq: Number(f.seq.value), event };
  }
  throw new Error("unknown action");
}

$("#action-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const errBox = $("#action-error");
  try {
    const res = await write("/api/events", actionBody(currentAction, e.target.elements));
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
$("#show-pair").addEventListener("click", () => { const img = $("#pair-img"); img.src = withToken("/api/pair"); img.hidden = false; });

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
$("#still").addEventListener("load", drawCorners);
$("#still").addEventListener("error", () => { $("#corners-msg").textContent = "No picture of the table yet."; });
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
  connect();
}
