// The camera page: the phone on a stand over the table is the table's camera (INTERFACES §5).
// Streams JPEG frames over WS /api/camera at the rate the server asks for, one frame in flight at a
// time (frames are dropped, never queued), draws the located board's outline over the preview,
// shows the server's one-line hint, keeps the screen awake, and reconnects by itself.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const video = document.getElementById("video");
const preview = document.getElementById("preview");
const hintEl = document.getElementById("hint");
const connEl = document.getElementById("conn");
const rateEl = document.getElementById("rate");
const savedEl = document.getElementById("saved");
const grab = document.createElement("canvas");

const state = {
  ws: null, open: false, inFlight: false, lastSent: 0, wantFps: 10, answer: null,
  backoff: 500, sent: 0, acked: 0, reconnects: 0, wakeLock: null, stream: null,
};
window.cameraState = state;  // for tests and the curious

function setHint(text, ok) {
  hintEl.textContent = text;
  hintEl.className = ok ? "ok" : "warn";
}

async function startCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    setHint("this page needs HTTPS to use the camera (open the https:// link serve printed)", false);
    return;
  }
  try {
    state.stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
  } catch (err) {
    setHint("no camera: " + (err && err.name === "NotAllowedError" ? "allow the camera for this page" : err), false);
    return;
  }
  video.srcObject = state.stream;
  await video.play().catch(() => {});
  setHint("connecting…", false);
  requestAnimationFrame(draw);
  setInterval(maybeSend, 20);
}

function draw() {
  const w = video.videoWidth, h = video.videoHeight;
  if (w && h) {
    if (preview.width !== w || preview.height !== h) { preview.width = w; preview.height = h; }
    const ctx = preview.getContext("2d");
    ctx.drawImage(video, 0, 0, w, h);
    const a = state.answer;
    if (a && a.corners && a.size) {
      const sx = w / a.size[0], sy = h / a.size[1];
      ctx.lineWidth = Math.max(3, w / 250);
      ctx.strokeStyle = a.hint ? "#fc4" : "#3f3";
      ctx.beginPath();
      a.corners.forEach(([x, y], i) => (i ? ctx.lineTo(x * sx, y * sy) : ctx.moveTo(x * sx, y * sy)));
      ctx.closePath();
      ctx.stroke();
    }
  }
  requestAnimationFrame(draw);
}

function grabJpeg(maxWidth) {
  // the camera's picture as a JPEG, scaled down to maxWidth (the server reads no wider)
  const vw = video.videoWidth, vh = video.videoHeight;
  if (!vw || !vh) return Promise.resolve(null);
  const scale = maxWidth && vw > maxWidth ? maxWidth / vw : 1;
  const w = Math.round(vw * scale), h = Math.round(vh * scale);
  grab.width = w; grab.height = h;
  grab.getContext("2d").drawImage(video, 0, 0, w, h);
  return new Promise((resolve) => grab.toBlob(resolve, "image/jpeg", 0.85));
}

async function maybeSend() {
  // one frame in flight; the next only once it was answered and the server's interval has passed
  if (!state.open || state.inFlight || document.hidden) return;
  const now = performance.now();
  if (now - state.lastSent < 1000 / Math.max(0.5, state.wantFps)) return;
  state.inFlight = true;
  state.lastSent = now;
  const blob = await grabJpeg(state.answer && state.answer.send_width);
  if (!blob || !state.open) { state.inFlight = false; return; }
  try { state.ws.send(blob); state.sent += 1; } catch (e) { state.inFlight = false; }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/api/camera?token=${encodeURIComponent(token)}`);
  ws.binaryType = "arraybuffer";
  state.ws = ws;
  ws.onopen = () => {
    state.open = true; state.inFlight = false; state.backoff = 500;
    connEl.className = "conn on";
  };
  ws.onmessage = (ev) => {
    let a;
    try { a = JSON.parse(ev.data); } catch (e) { return; }
    state.answer = a; state.acked += 1; state.inFlight = false;
    if (a.want_fps) state.wantFps = a.want_fps;
    rateEl.textContent = (a.fps ? a.fps.toFixed(1) + " fps" : "") + (a.behind ? " · table busy" : "");
    if (a.error) setHint(a.error, false);
    else if (a.hint) setHint(a.hint, false);
    else setHint(a.located ? "board in view" : "looking for the board…", !!a.located);
  };
  ws.onclose = (ev) => {
    state.open = false; state.inFlight = false; state.ws = null;
    connEl.className = "conn off";
    if (ev.code === 1008) { setHint("this link needs the table token: open the camera link serve printed", false); return; }
    setHint("connection lost: reconnecting…", false);
    state.reconnects += 1;
    setTimeout(connect, state.backoff);
    state.backoff = Math.min(state.backoff * 2, 5000);
  };
  ws.onerror = () => {};
}

async function keepAwake() {
  try {
    if ("wakeLock" in navigator && !document.hidden) state.wakeLock = await navigator.wakeLock.request("screen");
  } catch (e) { /* refused (battery saver): the screen may still lock */ }
}
document.addEventListener("visibilitychange", () => { if (!document.hidden) keepAwake(); });

async function takePicture(kind) {
  savedEl.textContent = "taking the picture…";
  const blob = await grabJpeg(0);  // full size for calibration
  if (!blob) { savedEl.textContent = "no camera picture yet"; return; }
  const r = await fetch(`/api/camera/picture?kind=${kind}`, {
    method: "POST", body: blob,
    headers: { "Content-Type": "image/jpeg", "Authorization": "Bearer " + token },
  });
  const body = await r.json().catch(() => ({}));
  savedEl.textContent = r.ok ? `kept for calibrate ${kind}: ${body.command}` : `not kept: ${body.detail || r.status}`;
}
document.getElementById("shot-board").onclick = () => takePicture("board");
document.getElementById("shot-tiles").onclick = () => takePicture("tiles");

keepAwake();
connect();
startCamera();
