"""Seeded fuzzing of every write route and of the CLI's readers of records and pictures: never a
5xx, never a traceback, always one sentence. ``COMPANION_FUZZ_BODIES`` sets the size of the long
run (``companion bench hostile`` runs 10,000)."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.auth import current_tokens
from companion_api.cli import main
from companion_api.settings import Settings
from lab.bench.fuzz import FuzzRequest, fuzz_pictures, fuzz_records, fuzz_requests
from vision.sources import SourceError, read_image_file

SEED = 49


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(game="triolet", players=["Ana", "Ben"], db=tmp_path / "fuzz.sqlite3")
    app = create_app(settings, use_source=False)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def send(c: TestClient, req: FuzzRequest) -> tuple[int, object]:
    tokens = current_tokens(c.app)
    token = {"table": tokens.table, "viewer": tokens.viewer, "wrong": "not-a-token", "none": None}[req.token]
    headers = {"Content-Type": req.content_type} if req.content_type else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    r = c.post(req.path, content=req.body, headers=headers)
    try:
        detail = r.json().get("detail") if r.status_code >= 400 else None
    except ValueError:
        detail = r.text
    return r.status_code, detail


def fuzz_server(c: TestClient, count: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    for req in fuzz_requests(SEED, count):
        status, detail = send(c, req)
        statuses[status] += 1
        assert status < 500, (req, status, detail)
        if status >= 400:
            assert isinstance(detail, str) and detail and "\n" not in detail and len(detail) < 2000, (req, detail)
    return statuses


def test_fuzzed_write_bodies_never_get_a_5xx(client: TestClient) -> None:
    statuses = fuzz_server(client, 400)
    assert statuses[201] > 0 and statuses[422] > 0 and statuses[401] > 0  # the fuzz reaches every outcome


@pytest.mark.slow
def test_many_fuzzed_write_bodies_never_get_a_5xx(client: TestClient) -> None:
    fuzz_server(client, int(os.environ.get("COMPANION_FUZZ_BODIES", "2000")))


def test_fuzzed_records_exit_0_or_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    codes: Counter[int] = Counter()
    for i, data in enumerate(fuzz_records(SEED, 150)):
        rec = tmp_path / f"r{i}.jsonl"
        rec.write_bytes(data)
        for command in (["check"], ["moves"], ["export", "--format", "jsonl"]):
            code = main([*command, str(rec)])
            err = capsys.readouterr().err
            codes[code] += 1
            assert code in (0, 2), (command, data[:300], err)
            assert "Traceback" not in err and "internal error" not in err
            if code == 2:
                assert err.count("\n") == 1, err
    assert codes[0] > 0 and codes[2] > 0


def test_fuzzed_pictures_are_read_or_refused_in_one_line(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    refused = 0
    for i, (suffix, data) in enumerate(fuzz_pictures(SEED, 80)):
        f = tmp_path / f"p{i}{suffix}"
        f.write_bytes(data)
        try:
            img = read_image_file(f)
            assert img.ndim == 3 and img.shape[0] * img.shape[1] <= 50_000_000
        except SourceError as exc:
            refused += 1
            assert "\n" not in str(exc)
    assert refused > 40
    out = capfd.readouterr()
    assert "Traceback" not in out.err


def test_picture_bombs_exit_2_through_every_command(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from lab.bench.fuzz import jpeg_declaring, png_declaring

    png = tmp_path / "bomb.png"
    png.write_bytes(png_declaring(20000, 20000, 4096))
    jpg = tmp_path / "bomb.jpg"
    jpg.write_bytes(jpeg_declaring(30000, 30000))
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_0001.png").write_bytes(png.read_bytes())
    mid = tmp_path / "mid.png"  # under Pillow's own bomb limit, over ours
    mid.write_bytes(png_declaring(9000, 7000, 4096))
    for argv in (["read", "--game", "triolet", str(png)], ["read", "--game", "triolet", str(jpg)],
                 ["read", "--game", "triolet", str(mid)],
                 ["calibrate", "board", "--game", "triolet", str(jpg), "--out", str(tmp_path / "p.json")],
                 ["replay", "--game", "triolet", "--players", "2", str(frames)]):
        code = main(argv)
        err = capfd.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "megapixel" in err, (argv, err)


def test_a_400_deep_correction_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab.bench.fuzz import RECORD_HEADER

    event: object = {"type": "pass", "player": 0}
    for _ in range(400):
        event = {"type": "correct", "seq": 1, "event": event}
    rec = tmp_path / "deep.jsonl"
    rec.write_text(json.dumps(RECORD_HEADER) + "\n" + '{"type": "pass", "player": 0}\n' + json.dumps(event) + "\n")
    for command in (["check"], ["moves"], ["export", "--format", "jsonl"]):
        assert main([*command, str(rec)]) == 2
        err = capsys.readouterr().err
        assert "line 3" in err and "nested more than 64" in err and err.count("\n") == 1


def test_a_deeply_nested_profile_is_a_profile_error(tmp_path: Path) -> None:
    from calibration.profile import ProfileError, load_profile

    prof = tmp_path / "p.json"
    prof.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ProfileError, match="nested"):
        load_profile(prof)
