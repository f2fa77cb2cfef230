"""``companion bench decide --game triolet --cache DIR`` — the Triolet reader's decision step alone
(``vision.read.triolet.reader.decide_cells``: T-B3/T-P7 counts, T-P4 runs, T-P3 groups), paired, on
thousands of frames in seconds.

The first run renders the frames exactly as ``companion bench read`` does, reads them, and keeps in
``DIR`` per frame what the picture said of each square before the rules decided
(``TrioletReading.evidence``), the cells as then read, the truth and the hand mask. Every run then
decides the kept evidence again with this checkout's rules and scores both readings as
``companion bench read`` does: the perfect boards before and now, the boards gained and lost, the
squares mended and spoilt. A change of the rules is judged on the same frames, and rendering and
the nets (almost all of the time) are paid once.

The evidence depends on everything before the decision step, so ``DIR`` holds a fingerprint of
that code (``vision/`` but ``consistency.py``, models and typefaces included): evidence made by
another reader is refused, never silently compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import zipfile
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table, machine_line
from lab.bench.read import ROWS, _single_threaded_blas, checked_rows, row_first_seed, row_style

#: The decision step's own code: changing it keeps the evidence valid.
DECISION_FILES = ("read/triolet/consistency.py",)
FINGERPRINT_FILE = "fingerprint.txt"
#: Progress goes to stderr every this many frames while evidence is made.
PROGRESS_EVERY = 50


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="triolet", choices=["triolet"], help="the reader whose rules are measured")
    p.add_argument("--cache", metavar="DIR", required=True,
                   help="folder keeping each frame's evidence (made on the first run, reused after)")
    p.add_argument("--frames", type=int, default=500, help="frames per row")
    p.add_argument("--seed", type=seed_number, default=0,
                   help="first seed (rows use seed + row·100000 + i, as in 'companion bench read')")
    p.add_argument("--rows", default="normal", help=f"comma-separated rows ({', '.join(ROWS)})")
    p.add_argument("--errors", action="store_true", help="name the boards gained and lost, with their squares")


def reader_fingerprint(root: Path | None = None) -> str:
    """A hash of the code and data that make the evidence: every file under ``vision/`` but the
    decision step's own (``DECISION_FILES``) and caches."""
    base = Path(__file__).resolve().parents[2] / "vision" if root is None else root
    h = hashlib.sha256()
    for path in sorted(p for p in base.rglob("*") if p.is_file()):
        rel = path.relative_to(base).as_posix()
        if rel in DECISION_FILES or "__pycache__" in rel:
            continue
        h.update(rel.encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


def open_cache(folder: Path, fingerprint: str) -> None:
    """Make ``folder`` for evidence of this reader, or check that the evidence in it is this reader's."""
    if folder.exists() and not folder.is_dir():
        raise CliError(f"--cache {folder}: not a folder")
    marker = folder / FINGERPRINT_FILE
    if marker.exists():
        found = marker.read_text(encoding="utf-8").strip()
        if found != fingerprint:
            raise CliError(f"--cache {folder}: its evidence was made by another reader (fingerprint {found}, this "
                           f"checkout's {fingerprint}: the code before the decision step changed); delete it or "
                           "choose another folder")
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise CliError(f"--cache {folder}: a folder that holds other things (no {FINGERPRINT_FILE}); name a new "
                       "or empty folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(fingerprint + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"--cache {folder}: cannot write there ({exc.strerror or exc})") from None


def make_evidence(path: Path, seed: int, row: str) -> None:
    """Render frame ``seed`` of ``row`` as ``companion bench read`` does, read it, and keep its
    evidence, its cells as read, its labels and its hand mask in ``path``."""
    from lab.render import random_frame
    from vision.locate import BoardNotLocatedError
    from vision.read.triolet.reader import SquareEvidence, read_triolet

    diff, pool = row_style(row)
    fr = random_frame("triolet", seed, diff, pool=pool, size=(1280, 720))
    occluders = fr.masks.get("occluders")
    arrays: dict[str, Any] = {
        "labels": np.frombuffer(json.dumps(fr.labels).encode(), np.uint8),
        "occluders": np.zeros((0, 0), np.uint8) if occluders is None else occluders,
    }
    try:
        reading = read_triolet(fr.image)
    except BoardNotLocatedError:
        reading = None
    except Exception as exc:  # a reader bug: kept as not located, as 'companion bench read' counts it
        reading = None
        print(f"{row} seed {seed}: the reader failed ({type(exc).__name__}: {exc}); kept as not located",
              file=sys.stderr)
    if reading is not None and reading.evidence is not None:
        arrays.update({f.name: getattr(reading.evidence, f.name) for f in fields(SquareEvidence)},
                      corners=np.asarray(reading.board.corners_px, np.float64),
                      cells=np.frombuffer(json.dumps([c.to_json() for c in reading.cells]).encode(), np.uint8))
    tmp = path.with_name(path.name + ".part.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(path)


@dataclass
class Paired:
    """One row's frames scored as kept and as decided now."""

    frames: int = 0
    located: int = 0
    perfect_before: int = 0
    perfect_now: int = 0
    gained: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    mended: int = 0
    spoilt: int = 0
    guesses_before: int = 0
    guesses_now: int = 0
    decide_ms: list[float] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)


def score_kept(path: Path, seed: int, result: Paired) -> None:
    """Score the frame kept in ``path`` as read then and as this checkout's rules decide it now."""
    from lab.evaluate.triolet import score_cells
    from vision.read.triolet.reader import SquareEvidence, decide_cells

    try:
        with np.load(path) as d:
            kept = {k: d[k] for k in d.files}
        labels = json.loads(bytes(kept["labels"]).decode())
        occ = kept["occluders"] if kept["occluders"].size else None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise CliError(f"{path}: not evidence this bench can read ({type(exc).__name__}); delete the file and "
                       "it is made again") from None
    result.frames += 1
    if "probs" not in kept:
        before = now = score_cells(None, [], labels, occ)
    else:
        ev = SquareEvidence(**{f.name: np.asarray(kept[f.name], np.float32 if f.name == "probs" else bool)
                               for f in fields(SquareEvidence)})
        t0 = time.perf_counter()
        cells = [c.to_json() for c in decide_cells(ev)]
        result.decide_ms.append((time.perf_counter() - t0) * 1e3)
        corners = kept["corners"].tolist()
        before = score_cells(corners, json.loads(bytes(kept["cells"]).decode()), labels, occ)
        now = score_cells(corners, cells, labels, occ)
    result.located += int(now.located)
    result.perfect_before += int(before.perfect)
    result.perfect_now += int(now.perfect)
    result.guesses_before += len(before.guesses)
    result.guesses_now += len(now.guesses)
    wrong_before = {e[0]: e for e in before.errors}
    wrong_now = {e[0]: e for e in now.errors}
    result.mended += len(wrong_before.keys() - wrong_now.keys())
    result.spoilt += len(wrong_now.keys() - wrong_before.keys())
    if before.perfect != now.perfect:
        (result.gained if now.perfect else result.lost).append(seed)
    for sq in sorted(wrong_before.keys() ^ wrong_now.keys()):
        _, truth, read, _ = wrong_before.get(sq) or wrong_now[sq]
        was, now_read = (read, truth) if sq in wrong_before else (truth, read)
        result.changes.append(f"seed {seed} {sq}: truth {truth}, read {was} before, {now_read} now")


def paired_rows(cache: Path, rows: list[str], frames: int, seed: int, progress: bool = True) -> dict[str, Paired]:
    """Make the missing evidence in ``cache`` and score every row's frames paired (``Paired``)."""
    open_cache(cache, reader_fingerprint())
    out: dict[str, Paired] = {}
    for row in (r for r in ROWS if r in rows):
        folder = cache / row
        folder.mkdir(exist_ok=True)
        result = out.setdefault(row, Paired())
        made = 0
        for i in range(frames):
            s = row_first_seed(seed, row) + i
            path = folder / f"{s}.npz"
            if not path.exists():
                make_evidence(path, s, row)
                made += 1
                if progress and made % PROGRESS_EVERY == 0:
                    print(f"{row}: evidence made for {made} frames ({i + 1}/{frames})", file=sys.stderr, flush=True)
            score_kept(path, s, result)
    return out


def run(args: argparse.Namespace) -> int:
    import cv2

    _single_threaded_blas()
    cv2.setNumThreads(1)
    rows = checked_rows(args.rows, args.frames)
    if not str(args.cache):
        raise CliError("--cache: the path is empty")
    results = paired_rows(Path(args.cache), rows, args.frames, args.seed)
    table = []
    for row, r in results.items():
        n = max(1, r.frames)
        table.append([row, r.frames, 100.0 * r.located / n, 100.0 * r.perfect_before / n, 100.0 * r.perfect_now / n,
                      len(r.gained), len(r.lost), r.mended, r.spoilt, f"{r.guesses_before} → {r.guesses_now}",
                      float(np.median(r.decide_ms)) if r.decide_ms else "-"])
    print(format_table(["row", "frames", "located %", "perfect % kept", "perfect % now", "boards gained",
                        "boards lost", "squares mended", "squares spoilt", "silent guesses", "decide ms"],
                       table, title="companion bench decide --game triolet (the evidence kept in "
                                    f"{args.cache}, decided again by this checkout's rules)"))
    if args.errors:
        for row, r in results.items():
            for label, seeds in (("gained", r.gained), ("lost", r.lost)):
                if seeds:
                    print(f"{row}: boards {label}: {', '.join(map(str, seeds))}")
            for line in r.changes:
                print(f"{row} {line}")
    print(machine_line())
    return 0
