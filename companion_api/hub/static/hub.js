// The scoreboard: a card per table, live from the hub's /api/stream (a snapshot, then changes).
"use strict";

const cards = new Map(); // "club/table" -> latest entry from the hub
let brokerUp = true; // whether the hub reaches the club's broker

function key(entry) { return entry.club + "/" + entry.table; }

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function describe(ev, players) {
  if (!ev) return "no move yet";
  const who = typeof ev.player === "number" ? (players[ev.player] || "player " + (ev.player + 1)) + " " : "";
  const score = typeof ev.score === "number" && ev.score !== 0 ? " (" + (ev.score > 0 ? "+" : "") + ev.score + ")" : "";
  const verbs = { place: "placed", exchange: "exchanged", pass: "passed", reveal: "revealed", illegal: "tried an illegal move",
    correct: "corrected a move", undo: "undid a move" };
  return "#" + ev.seq + " " + who + (verbs[ev.type] || ev.type) + score;
}

function render() {
  const root = document.getElementById("tables");
  const entries = [...cards.values()].sort((a, b) => key(a).localeCompare(key(b)));
  const clubs = new Set(entries.map((e) => e.club));
  root.replaceChildren(...entries.map((entry) => card(entry, clubs.size > 1)));
  document.getElementById("empty").hidden = entries.length > 0;
  const quiet = entries.filter((e) => e.quiet).length;
  document.getElementById("summary").textContent =
    entries.length + " table" + (entries.length === 1 ? "" : "s") + (quiet ? " · " + quiet + " gone quiet" : "") +
    (brokerUp ? "" : " · the broker cannot be reached: scores shown may be behind");
}

function card(entry, showClub) {
  const state = entry.state || {};
  const over = state.ended === true || state.status === "finished";
  const node = el("article", "card" + (over ? " over" : "") + (entry.quiet ? " quiet" : ""));
  node.dataset.table = entry.table;
  node.dataset.club = entry.club;
  const head = el("h2");
  head.append(el("span", "name", entry.table), el("span", "flag",
    entry.quiet ? "gone quiet" : over ? "game over" : ""));
  node.append(head);
  if (showClub) node.append(el("div", "club", entry.club));
  node.append(el("div", "game", (state.title || state.game || "") + (state.seq !== undefined ? " · move " + state.seq : "")));
  const list = el("ol", "players");
  const players = state.players || [];
  const totals = state.totals || [];
  const winners = new Set(Array.isArray(state.winner) ? state.winner : []);
  const turn = state.turn && !over ? state.turn.player : null;
  players.forEach((name, i) => {
    const li = el("li", (i === turn ? "turn" : "") + (over && winners.has(i) ? " win" : ""));
    li.append(el("span", "name", name), el("span", "total", totals[i] !== undefined ? String(totals[i]) : "–"));
    list.append(li);
  });
  node.append(list);
  const ev = entry.last_event;
  const seen = entry.last_seen ? new Date(entry.last_seen * 1000).toLocaleTimeString() : "";
  node.append(el("div", "last", "last move: " + describe(ev, players) + (seen ? " · heard " + seen : "")));
  return node;
}

function connect() {
  const source = new EventSource("/api/stream");
  const conn = document.getElementById("conn");
  source.onopen = () => { conn.className = "conn on"; };
  source.onerror = () => { conn.className = "conn off"; };
  source.addEventListener("tables", (e) => {
    const snapshot = JSON.parse(e.data);
    cards.clear();
    for (const entry of snapshot.tables) cards.set(key(entry), entry);
    brokerUp = snapshot.broker !== false;
    render();
  });
  source.addEventListener("table", (e) => {
    const entry = JSON.parse(e.data);
    cards.set(key(entry), entry);
    render();
  });
  source.addEventListener("hub", (e) => {
    brokerUp = JSON.parse(e.data).broker !== false;
    render();
  });
  source.addEventListener("move", (e) => {
    const msg = JSON.parse(e.data);
    const entry = cards.get(key(msg));
    if (entry && (!entry.last_event || entry.last_event.seq <= msg.event.seq)) {
      entry.last_event = msg.event;
      render();
    }
  });
}

connect();
