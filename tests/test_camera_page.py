"""The phone as the camera (INTERFACES §5): ``--source phone``, ``GET /camera``, ``WS /api/camera``,
the camera lost and found, the local HTTPS certificate, and the camera page in a real Chromium
playing a rendered game video as its camera."""

from __future__ import annotations

import os
import re
import ssl
import stat
import time
from pathlib import Path
from typing import Any

import api_helpers as h
import cv2
import httpx
import numpy as np
import pytest
from camera_helpers import video_frames, with_rests, write_y4m
from cli_process import companion
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.certs import cert_names, ensure_certificate
from companion_api.phone_camera import HINT_DARK, HINT_NO_BOARD, PhoneCamera, PhoneSource
from companion_api.sources import PhoneFactory, build_source, parse_source
from companion_api.table import SourceContext, TableSource
from engine.core import Session

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                    reason=f"{CHROMIUM} is missing (apt-get install chromium)")


def jpeg(level: int = 128, size: tuple[int, int] = (64, 48), seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    img = np.clip(rng.normal(level, 20, (size[1], size[0], 3)), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


# -- the newest frame only ------------------------------------------------------------------
def test_a_frame_not_yet_read_is_replaced_never_queued() -> None:
    cam = PhoneCamera()
    first = cam.push(jpeg(seed=1))
    assert first["behind"] is False and first["want_fps"] == cam.want_fps
    cam.push(jpeg(seed=2))
    answer = cam.push(jpeg(seed=3))
    assert answer["behind"] is True and cam.status.dropped == 2
    got = cam.take(0.1)
    assert got is not None and got[1] == jpeg(seed=3)
    assert cam.take(0.05) is None  # nothing queued behind it
    assert cam.answer()["behind"] is False  # said once


def test_a_stale_frame_is_never_handed_to_the_tracker() -> None:
    cam = PhoneCamera(lost_after=0.1)
    cam.push(jpeg())
    time.sleep(0.2)
    assert cam.lost() and cam.take(0.05) is None


def test_phone_is_a_source_name() -> None:
    spec = parse_source("phone")
    assert spec.kind == "phone" and str(spec) == "phone"
    factory = build_source(spec)
    assert isinstance(factory, PhoneFactory) and isinstance(factory.camera, PhoneCamera)


def test_the_hint_says_what_the_person_holding_the_phone_should_do() -> None:
    from types import SimpleNamespace

    from companion_api.phone_camera import HINT_STILL
    from vision.track.observer import BoardFix

    rng = np.random.default_rng(3)
    scene = cv2.GaussianBlur(rng.integers(0, 255, (360, 640, 3), dtype=np.uint8), (0, 0), 3)
    scene = cv2.normalize(scene, None, 60, 230, cv2.NORM_MINMAX)
    board = SimpleNamespace(fix=BoardFix.from_corners([[100, 50], [500, 60], [510, 330], [90, 320]]))
    source = PhoneSource(None, PhoneCamera())  # type: ignore[arg-type]
    status = source.camera.status

    def hint(tracker: Any, image: Any) -> str:
        source.seen(tracker, image)
        return status.hint

    assert hint(board, scene) == "" and status.located and status.size == (640, 360)
    assert status.corners == [[100.0, 50.0], [500.0, 60.0], [510.0, 330.0], [90.0, 320.0]]
    assert hint(board, np.roll(scene, 24, axis=1)) == HINT_STILL  # the whole picture moved
    assert hint(board, np.roll(scene, 24, axis=1)) == ""  # and stopped
    assert hint(board, (scene * 0.1).astype(np.uint8)) == HINT_DARK
    off = SimpleNamespace(fix=BoardFix.from_corners([[100, 50], [700, 60], [710, 330], [90, 320]]))
    assert hint(off, scene) == HINT_NO_BOARD and status.located  # a corner out of the picture
    assert hint(SimpleNamespace(fix=None), scene) == HINT_NO_BOARD and not status.located
    rests = SimpleNamespace(ever_located=True)  # the rest tracker: no outline, located once read
    assert hint(rests, scene) == "" and status.located and status.corners is None


# -- the camera lost and found --------------------------------------------------------------
class QuietTracker:
    """Sees nothing happen; records what it was fed and when it was told to start afresh."""

    def __init__(self) -> None:
        self.session = Session(h.header())
        self.fed: list[float] = []
        self.restarts = 0
        self.fix = None
        self.log: list[str] = []

    def submit(self, event: Any) -> Any:
        return self.session.submit(event)

    def feed(self, index: int, t: float, image: Any) -> list[Any]:
        self.fed.append(t)
        self.log.append("feed")
        return []

    def restart_watch(self) -> None:
        self.restarts += 1
        self.log.append("restart")


class QuietPhone:
    """A ``--source phone`` factory whose tracker is :class:`QuietTracker`."""

    def __init__(self) -> None:
        self.camera = PhoneCamera(lost_after=0.6)
        self.tracker = QuietTracker()

    def __call__(self, ctx: SourceContext) -> TableSource:
        return PhoneSource(ctx, self.camera, make_tracker=lambda _frames, _corners: self.tracker)


def _watch(client: TestClient, viewer: str) -> str:
    return str(client.get(f"/api/game?token={viewer}").json()["watch"]["status"])


def _until(check: Any, timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_a_phone_that_stops_sending_is_a_camera_lost_and_found(tmp_path: Path) -> None:
    factory = QuietPhone()
    app = create_app(h.settings(tmp_path / "c.sqlite3", source="phone"), source_factory=factory)
    with TestClient(app) as client:
        tokens = app.state.tokens
        assert app.state.phone_camera is factory.camera
        _until(lambda: _watch(client, tokens.viewer) == "waiting")  # before the first frame
        with client.websocket_connect(f"/api/camera?token={tokens.table}") as ws:
            hello = ws.receive_json()
            assert hello["located"] is False and hello["hint"] == HINT_NO_BOARD
            for i in range(3):
                ws.send_bytes(jpeg(level=20, seed=i))  # a dark picture
                answer = ws.receive_json()
                time.sleep(0.1)
            _until(lambda: _watch(client, tokens.viewer) == "ok")
            assert set(answer) >= {"located", "fps", "hint"}
            ws.send_text("?")
            assert ws.receive_json()["hint"] == HINT_DARK
        assert factory.tracker.restarts == 1 and factory.tracker.log[0] == "restart"  # a fresh start
        _until(lambda: _watch(client, tokens.viewer) == "camera_lost")
        fed = len(factory.tracker.fed)
        with client.websocket_connect(f"/api/camera?token={tokens.table}") as ws:
            ws.receive_json()
            ws.send_bytes(jpeg(seed=9))
            ws.receive_json()
            _until(lambda: _watch(client, tokens.viewer) == "ok")
        # found again: the tracker starts afresh before it sees the first new frame
        assert factory.tracker.restarts == 2 and factory.tracker.log[-2:] == ["restart", "feed"]
        assert len(factory.tracker.fed) == fed + 1


def test_the_camera_needs_the_table_token(tmp_path: Path) -> None:
    from starlette.websockets import WebSocketDisconnect

    app = create_app(h.settings(tmp_path / "t.sqlite3", source="sim-lite"), use_source=False)
    with TestClient(app) as client:
        tokens = app.state.tokens
        assert client.get("/camera").status_code == 401
        assert client.get(f"/camera?token={tokens.viewer}").status_code == 403
        page = client.get(f"/camera?token={tokens.table}")
        assert page.status_code == 200 and "getUserMedia" in client.get("/static/camera.js").text
        for bad in ("", tokens.viewer, "nope"):
            with pytest.raises(WebSocketDisconnect) as err, \
                    client.websocket_connect(f"/api/camera?token={bad}") as ws:
                ws.receive_json()
            assert err.value.code == 1008
        # another source: frames are taken and answered, the page told they are not read
        with client.websocket_connect(f"/api/camera?token={tokens.table}") as ws:
            ws.receive_json()
            ws.send_bytes(jpeg())
            assert "another source" in ws.receive_json()["hint"]


def test_a_calibration_picture_is_kept_beside_the_database(tmp_path: Path) -> None:
    app = create_app(h.settings(tmp_path / "db" / "k.sqlite3", source="sim-lite"), use_source=False)
    with TestClient(app) as client:
        table = app.state.tokens.table
        r = client.post(f"/api/camera/picture?kind=board&token={table}")
        assert r.status_code == 422 and "no picture" in r.json()["detail"]
        r = client.post(f"/api/camera/picture?kind=tiles&token={table}", content=b"not a jpeg",
                        headers={"Content-Type": "image/jpeg"})
        assert r.status_code == 422
        assert client.post(f"/api/camera/picture?kind=board&token={app.state.tokens.viewer}",
                           content=jpeg()).status_code == 403
        picture = jpeg(seed=5)
        r = client.post(f"/api/camera/picture?kind=tiles&token={table}", content=picture,
                        headers={"Content-Type": "image/jpeg"})
        assert r.status_code == 201, r.text
        body = r.json()
        path = Path(body["path"])
        assert path == tmp_path / "db" / "camera" / "calibration-tiles.jpg" and path.read_bytes() == picture
        assert body["command"].startswith(f"companion calibrate tiles --game {h.GAME} {path}")
        # an empty body keeps the newest streamed frame
        with client.websocket_connect(f"/api/camera?token={table}") as ws:
            ws.receive_json()
            ws.send_bytes(jpeg(seed=6))
            ws.receive_json()
        r = client.post(f"/api/camera/picture?kind=board&token={table}")
        assert r.status_code == 201 and Path(r.json()["path"]).read_bytes() == jpeg(seed=6)


# -- HTTPS -------------------------------------------------------------------------------------
def test_the_local_certificate_names_this_machine_and_keeps_its_key_private(tmp_path: Path) -> None:
    cert, key, made = ensure_certificate(tmp_path, ["127.0.0.1", "localhost", "10.1.2.3"])
    assert made and cert_names(cert) == {"127.0.0.1", "localhost", "10.1.2.3"}
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    again = ensure_certificate(tmp_path, ["127.0.0.1", "localhost"])
    assert again == (cert, key, False)  # kept: it names them already
    moved = ensure_certificate(tmp_path, ["127.0.0.1", "localhost", "10.9.9.9"])
    assert moved[2] and "10.9.9.9" in cert_names(cert)  # a new LAN address: made again


def test_serve_prints_the_camera_link_and_serves_it_over_https(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    proc = companion("serve", "--db", str(db), "--port", "0", "--host", "127.0.0.1", "--source", "sim-lite",
                      "--game", "triolet")
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        viewer = re.fullmatch(r"viewer: (http://127\.0\.0\.1:\d+)/\?token=(\S+)\n", lines[0])
        table = re.fullmatch(r"table token: (\S+)\n", lines[1])
        camera = re.fullmatch(r"camera: (https://127\.0\.0\.1:\d+)/camera\?token=(\S+)\n", lines[2])
        assert viewer and table and camera, lines
        assert camera.group(2) == table.group(1)
        cert = tmp_path / "camera-cert.pem"
        assert cert.is_file() and stat.S_IMODE(os.stat(tmp_path / "camera-key.pem").st_mode) == 0o600
        ctx = ssl.create_default_context(cafile=str(cert))
        page = _until(lambda: _get(f"{camera.group(1)}/camera?token={table.group(1)}", ctx), 20)
        assert "getUserMedia" in _get(f"{camera.group(1)}/static/camera.js", ctx).text
        assert page.status_code == 200 and "camera" in page.text
        # viewers keep plain HTTP, and may use HTTPS too
        assert httpx.get(f"{viewer.group(1)}/api/game?token={viewer.group(2)}").json()["game"] == "triolet"
        assert _get(f"{camera.group(1)}/api/game?token={viewer.group(2)}", ctx).json()["game"] == "triolet"
    finally:
        proc.terminate()
        proc.wait(10)
    err = proc.stderr.read() if proc.stderr else ""  # type: ignore[union-attr]
    assert "camera page: the phone will warn once" in err  # what the phone will ask, for the person at the table


def _get(url: str, ctx: Any) -> Any:
    try:
        return httpx.get(url, verify=ctx, timeout=5)
    except httpx.TransportError:
        return None


def test_serve_refuses_a_certificate_without_its_key(tmp_path: Path) -> None:
    proc = companion("serve", "--db", str(tmp_path / "x.sqlite3"), "--port", "0", "--source", "sim-lite",
                      "--cert", str(tmp_path / "c.pem"))
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "--cert and --key go together" in err and len(err.strip().splitlines()) == 1


# -- the camera page in Chromium ------------------------------------------------------------
@pytest.fixture(scope="module")
def game_video(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from lab.render.video import VideoSpec, write_game_video

    spec = VideoSpec(game="triolet", seed=4, fps=10.0, size=(960, 540), max_events=3, takeback_prob=0.0,
                     light_change_prob=0.0, nudge_prob=0.0)
    folder = tmp_path_factory.mktemp("camera")
    paths = write_game_video(spec, folder)
    # held still 2 s before the game and 8 s after it: Chromium plays the file in a loop
    y4m = folder / "game.y4m"
    write_y4m(with_rests(video_frames(paths["video"]), 20, 80), y4m, 10)
    paths["y4m"] = y4m
    return paths


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_a_game_played_into_the_camera_page_is_scored_exactly(game_video: dict[str, Path], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from engine.core.record import load_record
    from engine.triolet import Place
    from lab.evaluate.videos import load_labels, same_placement, to_view, view_turns
    from vision.track.reader import ReaderObserver, ReaderUnavailableError

    try:
        ReaderObserver("triolet")
    except ReaderUnavailableError as exc:
        pytest.skip(str(exc))
    truth = load_record(game_video["record"])
    q = view_turns(load_labels(game_video["labels"])[0])
    truth_places = [e for e in truth.events if isinstance(e, Place)]
    assert len(truth_places) == 3 and truth.header.first_player == 0
    settings = h.settings(tmp_path / "g.sqlite3", game="triolet", players=list(truth.header.players), source="phone")
    app = create_app(settings)
    port = h.free_port()
    with h.live_server(app, port) as base, sync_playwright() as p:
        tokens = app.state.tokens
        # the tracker is built before the first frame: the table says it waits for the camera
        _until(lambda: httpx.get(f"{base}/api/game?token={tokens.viewer}").json()["watch"]["status"] == "waiting", 30)
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=[*ARGS, f"--use-file-for-fake-video-capture={game_video['y4m']}"])
        try:
            page = browser.new_page(viewport={"width": 844, "height": 390})  # a phone on its side, on a stand
            page.goto(f"{base}/camera?token={tokens.table}")
            expect(page.locator("#conn")).to_have_class("conn on", timeout=10_000)
            page.wait_for_function("cameraState.answer && cameraState.answer.located", timeout=20_000)
            expect(page.locator("#hint")).to_have_text("board in view", timeout=10_000)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "camera.png"))

            def events() -> list[dict[str, Any]]:
                return list(httpx.get(f"{base}/api/events?token={tokens.viewer}").json()["events"])

            _until(lambda: len(events()) >= len(truth_places), 45)
            time.sleep(2.0)  # the game's last frame held still: nothing more may come
            got = events()
            sent = page.evaluate("cameraState.sent")
        finally:
            browser.close()
    assert [e["type"] for e in got] == ["place"] * len(truth_places), got
    for ev, line in zip(truth_places, got, strict=True):
        place = _place(line, truth.header)
        assert same_placement(to_view(ev, q), place), (ev.to_json(), line)
        assert line["legal"] is True and line["source"] == "vision" and line["evidence"]
    assert got[-1]["totals"] == [16 + 9, 5]
    assert sent > 50  # frames really came from the page's camera


def _place(line: dict[str, Any], header: Any) -> Any:
    from engine.core.record import parse_event_line

    return parse_event_line({"type": "place", "player": line["player"], "tiles": line["tiles"]}, header)


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_the_camera_page_reconnects_after_the_server_restarts(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    settings = h.settings(tmp_path / "r.sqlite3", source="phone")
    port = h.free_port()

    def app_with_phone() -> Any:
        return create_app(settings, source_factory=QuietPhone())

    first = app_with_phone()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # Chromium's own test pattern
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            with h.live_server(first, port) as base:
                page.goto(f"{base}/camera?token={first.state.tokens.table}")
                expect(page.locator("#conn")).to_have_class("conn on", timeout=10_000)
                page.wait_for_function("cameraState.acked > 3", timeout=15_000)
            expect(page.locator("#conn")).to_have_class("conn off", timeout=10_000)
            expect(page.locator("#hint")).to_contain_text("reconnecting")
            time.sleep(1.0)  # down for a while: the page keeps trying
            second = app_with_phone()
            with h.live_server(second, port):
                expect(page.locator("#conn")).to_have_class("conn on", timeout=15_000)
                _until(lambda: second.state.phone_camera.status.frames_in > 3, 15)
                assert page.evaluate("cameraState.reconnects") >= 1
        finally:
            browser.close()



@pytest.mark.slow
def test_bench_camera_prints_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion_api.cli import main

    code = main(["bench", "camera", "--videos", "1", "--events", "2", "--size", "640x360", "--seed", "4",
                 "--cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    header = lines[1].split("  ")
    assert "latency ms (median)" in lines[1] and lines[2].startswith("------")
    cells = lines[3].split()
    assert header[0] == "videos" and cells[:5] == ["1", "2", "100.0", "0", "0"], out  # both moves, nothing false
    assert 0 < float(cells[5].replace(",", "")) < 3000  # a latency was measured


def test_bench_camera_names_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from companion_api.cli import main

    assert main(["bench", "camera", "--size", "big"]) == 2
    err = capsys.readouterr().err
    assert "--size big" in err and len(err.strip().splitlines()) == 1
