"""``companion bench camera`` — the phone as the camera, end to end, on loopback.

Renders (once, into a cache folder) short simulated Triolet games, then for each one starts a
table server with ``--source phone`` and plays the part of the phone: the video runs in real time
as if in front of the camera; the "phone" grabs the frame showing at each moment, encodes it as a
JPEG (at the width the server asks for) and sends it over ``WS /api/camera``, one frame in flight
and at the rate the server asks for (as the camera page does), while a viewer follows
``GET /api/stream``. Prints moves scored exactly, false and missed events, and the
**hand-leaves-to-phone latency**: from the moment the first frame without the hand is in front of
the camera to the viewer receiving the move (wall clock; the tracker's own 0.5 s stillness wait
starts when the hand stops changing the board, often before it leaves the picture, as in
``bench replay``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table, machine_line

HEADERS = ["videos", "moves", "exact %", "false events", "missed", "latency ms (median)", "latency ms (p90)",
           "latency ms (max)", "frames sent", "frames dropped", "fps read"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--videos", type=int, default=3, help="how many game videos (default 3)")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the first video (default 1)")
    p.add_argument("--events", type=int, default=6, help="events per game (default 6)")
    p.add_argument("--size", default="1280x720", help="camera picture size WxH (default 1280x720)")
    p.add_argument("--fps", type=float, default=10.0, help="frame rate of the videos (default 10)")
    p.add_argument("--quality", type=int, default=85, help="JPEG quality the phone sends (default 85, as the page)")
    p.add_argument("--cache", default=None, help="folder for the rendered videos "
                   "(default ~/.cache/table-companion/bench-camera)")
    p.add_argument("--verbose", action="store_true", help="print each video's problems")


def run(args: argparse.Namespace) -> int:
    if args.videos < 1:
        raise CliError("--videos must be at least 1")
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise CliError(f"--size {args.size}: expected WxH, like 1280x720") from None
    if not (64 <= w <= 3840 and 64 <= h <= 2160 and w % 2 == 0 and h % 2 == 0):
        raise CliError(f"--size {args.size}: even sides from 64x64 to 3840x2160")
    if not 1 <= args.quality <= 100:
        raise CliError(f"--quality {args.quality}: must be 1-100")
    from vision.track.reader import ReaderObserver, ReaderUnavailableError

    try:
        ReaderObserver("triolet")
    except ReaderUnavailableError as exc:
        raise CliError(f"the Triolet reader cannot run here ({exc})") from None
    videos = _ensure_videos(args, (w, h))
    results = []
    for video in videos:
        r = _one_game(video, args)
        results.append(r)
        sys.stderr.write(f"bench camera: {video.stem}: {r['exact']}/{r['moves']} exact, {r['false']} false, "
                         f"{r['missed']} missed, latency {_ms(r['latencies'])}\n")
        if args.verbose:
            for problem in r["problems"]:
                sys.stderr.write(f"    {problem}\n")
    lat = sorted(x for r in results for x in r["latencies"])
    moves = sum(r["moves"] for r in results)
    exact = sum(r["exact"] for r in results)
    p90 = lat[min(len(lat) - 1, int(0.9 * len(lat)))] if lat else float("nan")
    row = [len(results), moves, round(100.0 * exact / max(1, moves), 1), sum(r["false"] for r in results),
           sum(r["missed"] for r in results), round(statistics.median(lat)) if lat else float("nan"), round(p90),
           round(max(lat)) if lat else float("nan"), sum(r["sent"] for r in results),
           sum(r["dropped"] for r in results), round(statistics.mean(r["fps"] for r in results), 1)]
    print(format_table(HEADERS, [row], title=f"companion bench camera: {len(results)} Triolet games, "
                                             f"{w}x{h} JPEG q{args.quality} over WS /api/camera, "
                                             f"{args.fps:g} fps video, loopback"))
    print(machine_line())
    return 0


def _ms(values: list[float]) -> str:
    return f"{round(statistics.median(values))} ms median" if values else "none"


def _ensure_videos(args: argparse.Namespace, size: tuple[int, int]) -> list[Path]:
    from lab.render.video import VideoSpec, write_game_video

    base = Path(args.cache) if args.cache else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / \
        "table-companion" / "bench-camera"
    folder = base / f"triolet-{size[0]}x{size[1]}-fps{args.fps:g}-ev{args.events}"
    out = []
    for seed in range(args.seed, args.seed + args.videos):
        video = folder / f"triolet_seed{seed}.mp4"
        if not (video.exists() and video.with_suffix(".jsonl").exists()):
            sys.stderr.write(f"bench camera: rendering {video.name} …\n")
            spec = VideoSpec(game="triolet", seed=seed, fps=args.fps, size=size, max_events=args.events,
                             takeback_prob=0.0, light_change_prob=0.0, nudge_prob=0.0)
            write_game_video(spec, folder)
        out.append(video)
    return out


def _one_game(video: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Serve one table with ``--source phone``, play ``video`` into it as the phone, score it."""
    import cv2
    import uvicorn

    from companion_api.app import create_app
    from companion_api.settings import Settings
    from engine.core.record import parse_event_line
    from engine.triolet import Place
    from lab.evaluate.videos import load_video_truth, same_placement, to_view, view_turns
    from vision.sources import VideoFileSource

    labels, record = load_video_truth(video)
    q = view_turns(labels[0])
    truth = [e for e in record.events if isinstance(e, Place)]
    frames = [img for _i, _t, img in VideoFileSource(video)]
    lead, tail = int(args.fps), int(4 * args.fps)  # held still 1 s before and 4 s after the game
    shown = [frames[0]] * lead + frames + [frames[-1]] * tail
    with tempfile.TemporaryDirectory(prefix="bench-camera-") as tmp:
        settings = Settings(source="phone", game="triolet", players=list(record.header.players),
                            db=Path(tmp) / "bench.sqlite3")
        app = create_app(settings)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        # log_level critical: the viewer's stream cut at shutdown is expected, not worth a traceback
        server = uvicorn.Server(uvicorn.Config(app, log_level="critical", timeout_graceful_shutdown=1))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{port}"
            _wait(lambda: server.started, 20)
            tokens = app.state.tokens
            if record.header.first_player != 0:
                _post_json(f"{base}/api/games?token={tokens.table}",
                           {"players": list(record.header.players), "first_player": record.header.first_player})
            _wait(lambda: _get_json(f"{base}/api/game?token={tokens.viewer}")["watch"]["status"] == "waiting", 60)
            received: dict[int, tuple[float, dict[str, Any]]] = {}
            viewer = threading.Thread(target=_follow, args=(f"{base}/api/stream?token={tokens.viewer}", received),
                                      daemon=True)
            viewer.start()
            time.sleep(0.3)
            sent, t0 = _play(f"ws://127.0.0.1:{port}/api/camera?token={tokens.table}", shown, args.fps,
                             args.quality, cv2)
            time.sleep(1.0)
            cam = app.state.phone_camera
            dropped, fps = cam.status.dropped, cam.status.fps()
        finally:
            server.should_exit = True
            thread.join(10)
    got = [received[s] for s in sorted(received)]
    out: dict[str, Any] = {"moves": len(truth), "exact": 0, "false": 0, "missed": 0, "latencies": [],
                           "sent": sent, "dropped": dropped, "fps": fps, "problems": []}
    places = [(at, line) for at, line in got if line.get("type") == "place"]
    out["false"] = sum(1 for _at, line in got if line.get("type") != "place") + max(0, len(places) - len(truth))
    for i, ev in enumerate(truth):
        if i >= len(places):
            out["missed"] += 1
            out["problems"].append(f"missed move {i + 1}: {ev.to_json()}")
            continue
        at, line = places[i]
        mine = parse_event_line({"type": "place", "player": line["player"], "tiles": line["tiles"]}, record.header)
        if not same_placement(to_view(ev, q), mine):  # type: ignore[arg-type]
            out["problems"].append(f"move {i + 1}: truth {ev.to_json()} got {line}")
            continue
        out["exact"] += 1
        if ev.meta.frame is not None:
            hand_left = t0 + (lead + ev.meta.frame) / args.fps
            out["latencies"].append(1000.0 * (at - hand_left))
    return out


def _play(url: str, shown: list[Any], fps: float, quality: int, cv2: Any) -> tuple[int, float]:
    """Be the phone: send the frame in front of the camera now, one in flight, at the asked rate.
    Returns the frames sent and the monotonic time the video started."""
    from websockets.sync.client import connect

    sent = 0
    with connect(url, max_size=None) as ws:
        hello = json.loads(ws.recv())
        want = float(hello.get("want_fps") or fps)
        width = int(hello.get("send_width") or 0)
        t0 = time.monotonic()
        last = -1.0
        while True:
            now = time.monotonic()
            i = int((now - t0) * fps)
            if i >= len(shown):
                break
            if now - last < 1.0 / want:
                time.sleep(min(0.005, 1.0 / want - (now - last)))
                continue
            last = now
            img = shown[i]
            h, w = img.shape[:2]
            if width and w > width:  # as the page: scaled to the width the server reads
                img = cv2.resize(img, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
            _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
            ws.send(buf.tobytes())
            answer = json.loads(ws.recv())
            want = float(answer.get("want_fps") or want)
            sent += 1
    return sent, t0


def _follow(url: str, received: dict[int, tuple[float, dict[str, Any]]]) -> None:
    """A viewer on the SSE stream: the receipt time of each event, by seq."""
    import httpx

    try:
        with httpx.stream("GET", url, timeout=None) as r:
            event = ""
            for line in r.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event not in ("state", "game", ""):
                    data = json.loads(line[5:])
                    if isinstance(data.get("seq"), int) and data["seq"] not in received:
                        received[data["seq"]] = (time.monotonic(), data)
                elif not line:
                    event = ""
    except Exception:  # the server stopping ends the stream
        return


def _get_json(url: str) -> Any:
    import httpx

    return httpx.get(url, timeout=10).json()


def _post_json(url: str, body: Any) -> Any:
    import httpx

    return httpx.post(url, json=body, timeout=10).json()


def _wait(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise CliError("bench camera: the table server did not get ready")
        time.sleep(0.05)
