"""``companion bench read --game triolet`` — reading rendered boards: accuracy by difficulty, ms per frame.

Rows: ``easy``, ``normal``, ``hard`` frames from the styles the reader was trained on (seeds never
used in training), then ``held-out`` frames drawn only from styles it never saw (normal
difficulty; ``vision.triolet.holdout``). Timing runs on one core (``cv2.setNumThreads(1)``, one
BLAS thread):
wall-clock median/p95 and the process CPU time (honest on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from ..cli.common import CliError
from .table import format_table

ROWS = ("easy", "normal", "hard", "held-out")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="triolet", choices=["triolet", "trigon", "triominos", "trio_domino"],
                   help="which game's reader (trigon and the tile games: companion_api/bench/read_others.py)")
    p.add_argument("--frames", type=int, default=170, help="frames per row (4 rows: easy, normal, hard, held-out)")
    p.add_argument("--seed", type=int, default=0, help="first seed (rows use seed + row·100000 + i)")
    p.add_argument("--calibration", action="store_true",
                   help="give the reader the true corners and intrinsics as a calibration profile (no search)")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows to run")
    p.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    p.add_argument("--errors", action="store_true", help="list every misread square on stderr")
    p.add_argument("--difficulties", default="easy,normal,hard",
                   help="trigon and tile games only: difficulties to split --frames over")
    p.add_argument("--render-timeout", type=float, default=30.0,
                   help="skip a frame whose rendering takes longer than this many seconds (counted)")


def truth_profile(labels: dict[str, Any]) -> Any:
    """A calibration ``Profile`` holding a rendered frame's true intrinsics and board corners."""
    from calibration.profile import parse_profile

    cam = labels["camera"]
    w, h = labels["image_size"]
    f = 0.5 * w / np.tan(np.radians(cam["hfov_deg"]) / 2.0)
    off = cam.get("principal_offset_px", [0.0, 0.0])
    k = [[f, 0.0, (w - 1) / 2.0 + off[0]], [0.0, f, (h - 1) / 2.0 + off[1]], [0.0, 0.0, 1.0]]
    obj = {"version": 1, "camera_matrix": k, "dist_coeffs": [cam["k1"], cam["k2"], 0.0, 0.0, 0.0],
           "image_size": [w, h], "rms_px": 0.0, "images_used": 0,
           "board": {"game": "triolet", "corners_px": labels["board"]["corners_px_view"], "image_size": [w, h]}}
    return parse_profile(obj, "truth")


class _RenderTimeout(Exception):
    pass


def render_with_timeout(seconds: float, fn: Any, *a: Any, **kw: Any) -> Any:
    """``fn(*a, **kw)``, or ``None`` if it runs longer than ``seconds`` (SIGALRM; no limit elsewhere)."""
    import signal

    if not hasattr(signal, "SIGALRM") or seconds <= 0:
        return fn(*a, **kw)

    def on_alarm(signum: int, frame: Any) -> None:
        raise _RenderTimeout

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*a, **kw)
    except _RenderTimeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _single_threaded_blas() -> None:
    """Re-run this command with one BLAS thread: OpenBLAS threads spin on a busy machine and
    would charge several times the CPU of the one-core figure."""
    import os

    if os.environ.get("OPENBLAS_NUM_THREADS") == "1" or sys.argv[1:3] != ["bench", "read"]:
        return
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    code = "import sys; from companion_api.cli import main; sys.exit(main(sys.argv[1:]))"
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-c", code, *sys.argv[1:]], env)


def run(args: argparse.Namespace) -> int:
    if args.game != "triolet":
        from .read_others import run_other

        return run_other(args)

    import cv2

    _single_threaded_blas()

    from vision.locate import BoardNotLocatedError
    from vision.render import random_frame
    from vision.triolet.evaluate import score_frame
    from vision.triolet.holdout import held_out_pool, training_pool
    from vision.triolet.reader import read_triolet

    cv2.setNumThreads(1)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise CliError(f"--size {args.size}: expected WxH, e.g. 1280x720") from None
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    for r in rows:
        if r not in ROWS:
            raise CliError(f"--rows: unknown row {r!r} (choose from {', '.join(ROWS)})")
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    table = []
    for ri, row in enumerate(ROWS):
        if row not in rows:
            continue
        diff = "normal" if row == "held-out" else row
        pool = held_out_pool() if row == "held-out" else training_pool()
        located = squares = correct = perfect = errors = flagged = skipped = 0
        walls: list[float] = []
        cpus: list[float] = []
        corner_errs: list[float] = []
        i = 0
        n = 0
        while n < args.frames:
            seed = args.seed + ri * 100_000 + i
            i += 1
            fr = render_with_timeout(args.render_timeout, random_frame, "triolet", seed, diff, pool=pool, size=(w, h))
            if fr is None:
                skipped += 1
                print(f"{row} seed {seed}: rendering took over {args.render_timeout:g}s, skipped", file=sys.stderr)
                continue
            n += 1
            calib = truth_profile(fr.labels) if args.calibration else None
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                reading = read_triolet(fr.image, calib)
            except BoardNotLocatedError:
                reading = None
            walls.append((time.perf_counter() - t0) * 1e3)
            cpus.append((time.process_time() - c0) * 1e3)
            fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
            if fs.located:
                located += 1
                corner_errs.append(fs.corner_err_px)
            squares += fs.squares
            correct += fs.correct
            perfect += int(fs.perfect)
            errors += len(fs.errors)
            flagged += fs.flagged_errors
            if args.errors:
                for sq, t, g, conf in fs.errors:
                    print(f"{row} seed {seed} {sq}: truth {t} read {g} conf {conf:.2f}", file=sys.stderr)
                if not fs.located:
                    print(f"{row} seed {seed}: board not located (corner error {fs.corner_err_px:.1f}px)",
                          file=sys.stderr)
        table.append([
            row, n if not skipped else f"{n} (+{skipped} skipped)", 100.0 * located / n,
            float(np.median(corner_errs)) if corner_errs else float("nan"),
            100.0 * correct / max(1, squares), 100.0 * perfect / n,
            f"{flagged}/{errors}",
            float(np.median(walls)), float(np.percentile(walls, 95)), float(np.median(cpus)),
        ])
    print(format_table(
        ["row", "frames", "located %", "corner err px", "per square %", "perfect %", "low-conf errs",
         "median ms", "p95 ms", "cpu ms"],
        table,
        title=f"companion bench read --game triolet ({w}x{h}, one core{', calibrated' if args.calibration else ''})"))
    return 0
