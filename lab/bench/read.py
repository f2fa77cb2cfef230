"""``companion bench read --game triolet`` — reading rendered boards: accuracy by difficulty, ms per frame.

Rows: ``easy``, ``normal``, ``hard`` frames from the styles the reader was trained on (seeds never
used in training), then ``held-out`` frames drawn only from styles it never saw (normal
difficulty; ``lab.render.holdout``), then ``steep``: normal pictures taken 45–60° from straight
above (training styles, unseen seeds). Timing runs on one core (``cv2.setNumThreads(1)``, one
BLAS thread):
wall-clock median/p95 and the process CPU time (honest on a shared machine).

``--calibration`` (= ``profile``) measures the calibrated workflow instead: per scene group one
camera, board pose and style; the profile is made from one picture of the empty board exactly as
``companion calibrate board`` makes it (no true corners), then later pictures (more tiles, other
light and hands) are read without and with it, and one picture after the board was nudged shows the
re-validation falling back to the search. ``--calibration truth`` gives the reader the renderer's
true corners and intrinsics on the usual rows.

``--against DIR`` times this reader against another checkout's on the same frames, paired per
frame (``read_paired``).

``--cross`` reads the project renderer's normal frames and renderer B's pictures with each set of
square nets in ``--models DIR`` (``read_cross``: trained on A only, on A+B, on B only…).

``--renderer povray`` reads renderer B's pictures instead (``read_povray``: ray-traced tiles, other
editions and typefaces; one row per ``--faces`` group; for Triominos and Trio Domino
``read_povray_tiles``: one row per tile edition and group). Every run ends with the reliability table
(``reliability``): of the reader's answers at confidence ≥ 0.9, 0.6–0.9 and < 0.6, how many are right.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table, machine_line
from lab.bench.reliability import HEADERS as REL_HEADERS
from lab.bench.reliability import TITLE as REL_TITLE
from lab.bench.reliability import reliability_rows

ROWS = ("easy", "normal", "hard", "held-out", "steep")
#: The reader's stages timed in ``TrioletReading.timings_ms`` (wall ms), as the stage table lists them.
STAGES = ("locate", "rectify", "features", "classify", "consistency", "total")
#: Row k's frames use seeds ``--seed + k·ROW_SEED_STEP`` on.
ROW_SEED_STEP = 100_000


def row_first_seed(first: int, row: str) -> int:
    """The first seed of ``row``'s frames when the bench starts at ``first`` (``ROW_SEED_STEP``)."""
    return first + ROWS.index(row) * ROW_SEED_STEP


def row_style(row: str) -> tuple[str, Any]:
    """The difficulty and the style pool a row's frames are rendered with (``held-out``: normal
    difficulty, held-out styles only; the others: their difficulty, training styles)."""
    from lab.render.holdout import held_out_pool, training_pool

    if row == "held-out":
        return "normal", held_out_pool()
    return row, training_pool()


def checked_rows(rows_text: str, frames: int) -> list[str]:
    """The rows named in ``--rows`` (comma-separated), checked, with ``--frames`` checked too."""
    rows = [r.strip() for r in rows_text.split(",") if r.strip()]
    for r in rows:
        if r not in ROWS:
            raise CliError(f"--rows: unknown row {r!r} (choose from {', '.join(ROWS)})")
    if frames < 1:
        raise CliError("--frames must be at least 1")
    return rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="triolet",
                   choices=["triolet", "trigon", "triominos", "trio_domino", "blokus", "blokus_duo"],
                   help="which game's reader (trigon and the tile games: lab/bench/read_others.py; the Blokus "
                        "games on renderer B and the square boards: lab/bench/read_blokus_games.py)")
    p.add_argument("--frames", type=int, default=170, help="frames per row (rows: easy, normal, hard, held-out, steep)")
    p.add_argument("--seed", type=seed_number, default=0, help="first seed (rows use seed + row·100000 + i)")
    p.add_argument("--calibration", nargs="?", const="profile", choices=["profile", "truth"], default=None,
                   help="profile (the default): per scene group, calibrate on one empty-board picture as "
                        "'companion calibrate board' does, then read later pictures of the same camera without "
                        "and with the profile (and after nudging the board); truth: give the reader the "
                        "renderer's true corners and intrinsics on the usual rows")
    p.add_argument("--groups", type=int, default=8, help="--calibration profile: scene groups (cameras)")
    p.add_argument("--per-group", type=int, default=4, help="--calibration profile: later pictures per group")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows to run")
    p.add_argument("--size", default=None,
                   help="frame size WxH (default 1280x720; the Blokus games on renderer B: 1280x960)")
    p.add_argument("--errors", action="store_true", help="list every misread square on stderr")
    p.add_argument("--against", metavar="DIR", default=None,
                   help="time this reader against another checkout's (git worktree add DIR COMMIT) on the same "
                        "frames, paired per frame, and count the frames both read the same (Triolet)")
    p.add_argument("--difficulties", default="easy,normal,hard",
                   help="trigon and tile games only: difficulties to split --frames over")
    p.add_argument("--renderer", default="project", choices=["project", "povray"],
                   help="whose pictures: the project's renderer (rows above) or renderer B, ray-traced by "
                        "POV-Ray (docs/RENDERER_B.md; Triolet: rows by --faces; trigon, blokus, blokus_duo)")
    p.add_argument("--faces", default="train,held-out",
                   help="--renderer povray: comma-separated typeface groups, one row each (train, held-out, all)")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="--renderer povray: keep renders in DIR (keyed by seed and settings) and reuse them")
    p.add_argument("--calibrate-tiles", action="store_true",
                   help="--renderer povray --faces held-out: per held-out typeface, learn its tiles from one "
                        "calibration picture and read its boards with and without it")
    p.add_argument("--cross", action="store_true",
                   help="Triolet: the cross-renderer table: the project renderer's normal frames and renderer B's "
                        "train and held-out typeface frames, read by each net set of --models (read_cross)")
    p.add_argument("--models", metavar="DIR", default=None,
                   help="--cross: a folder of square-net weight files, or of sub-folders each holding one net set "
                        "(default: the committed nets)")
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


def frame_size(text: str) -> tuple[int, int]:
    """``WxH`` as two whole numbers; ``CliError`` naming the expected form otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CliError(f"--size {text}: expected WxH, e.g. 1280x720") from None
    return w, h


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
    if args.game in ("blokus", "blokus_duo") or (args.game == "trigon" and args.renderer == "povray"):
        from lab.bench.read_blokus_games import run_blokus_games

        return run_blokus_games(args, frame_size(args.size or "1280x960"))
    if args.game != "triolet":
        if getattr(args, "renderer", "project") == "povray":
            from lab.bench.read_povray_tiles import run_povray_tiles

            return run_povray_tiles(args)
        from lab.bench.read_others import run_other

        return run_other(args)

    import cv2

    _single_threaded_blas()

    from lab.evaluate.triolet import CAUSES, score_frame, square_px_band, square_px_band_names
    from lab.render import random_frame
    from vision.locate import BoardNotLocatedError
    from vision.read.triolet.classifier import WILD
    from vision.read.triolet.reader import read_triolet

    cv2.setNumThreads(1)
    w, h = frame_size(args.size or "1280x720")
    if args.against is not None and args.calibration:
        raise CliError("--against times the searching reader: it does not combine with --calibration")
    if getattr(args, "calibrate_tiles", False):
        if getattr(args, "renderer", "project") != "povray":
            raise CliError("--calibrate-tiles reads renderer B's pictures: add --renderer povray")
        from .read_povray_calib import run_povray_calibrated

        return run_povray_calibrated(args, (w, h))
    if getattr(args, "cross", False):
        from .read_cross import run_cross

        return run_cross(args, (w, h))
    if getattr(args, "models", None) is not None:
        raise CliError("--models names the net sets of --cross")
    if getattr(args, "renderer", "project") == "povray":
        from .read_povray import run_povray

        return run_povray(args, (w, h))
    if args.calibration == "profile":
        return run_profile_bench(args, (w, h))
    rows = checked_rows(args.rows, args.frames)
    if args.against is not None:
        from lab.bench.read_paired import run_paired

        return run_paired(args, (w, h), rows)
    table = []
    why: list[list[Any]] = []
    stages: list[list[Any]] = []
    by_size: list[list[Any]] = []
    crashed: list[int] = []
    rel: list[list[Any]] = []
    for row in (r for r in ROWS if r in rows):
        diff, pool = row_style(row)
        located = squares = correct = perfect = errors = flagged = skipped = strict = guesses = 0
        causes: Counter[str] = Counter()
        clear = clear_perfect = unreadable_only = 0
        walls: list[float] = []
        cpus: list[float] = []
        stage_ms: dict[str, list[float]] = {k: [] for k in STAGES}
        corner_errs: list[float] = []
        answers: list[tuple[float, bool]] = []
        bands: dict[str, list[int]] = {}  # band → [frames, located, perfect]
        i = 0
        n = 0
        while n < args.frames:
            seed = row_first_seed(args.seed, row) + i
            i += 1
            fr = render_with_timeout(args.render_timeout, random_frame, "triolet", seed, diff, pool=pool, size=(w, h))
            if fr is None:
                skipped += 1
                print(f"{row} seed {seed}: rendering took over {args.render_timeout:g}s, skipped", file=sys.stderr)
                continue
            n += 1
            calib = truth_profile(fr.labels) if args.calibration == "truth" else None
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                reading = read_triolet(fr.image, calib)
            except BoardNotLocatedError:
                reading = None
            except Exception as exc:  # a reader bug: the frame counts as not located, the run goes on
                reading = None
                crashed.append(seed)
                print(f"{row} seed {seed}: the reader failed ({type(exc).__name__}: {exc}); counted as not located",
                      file=sys.stderr)
            walls.append((time.perf_counter() - t0) * 1e3)
            cpus.append((time.process_time() - c0) * 1e3)
            if reading is not None:
                for k in STAGES:
                    stage_ms[k].append(float(reading.timings_ms.get(k, float("nan"))))
            fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
            answers += fs.readings
            band = bands.setdefault(square_px_band(fs.square_px), [0, 0, 0])
            band[0] += 1
            band[1] += int(fs.located)
            band[2] += int(fs.perfect)
            if fs.located:
                located += 1
                corner_errs.append(fs.corner_err_px)
            squares += fs.squares
            correct += fs.correct
            perfect += int(fs.perfect)
            strict += int(fs.perfect_strict)
            guesses += len(fs.guesses)
            if fs.cause:
                causes[fs.cause] += 1
            unreadable_only += int(fs.spoilt_only_where_unreadable)
            if not fs.hand_over_board:
                clear += 1
                clear_perfect += int(fs.perfect)
            errors += len(fs.errors)
            flagged += fs.flagged_errors
            if args.errors:
                for sq, t, g, conf in fs.errors:
                    hand = " (under a hand)" if sq in fs.under_hand else ""
                    if sq in fs.unreadable:
                        hand = f"{hand} (its marks in view are a {'wild' if g == WILD else g}'s too)"
                    print(f"{row} seed {seed} {sq}: truth {t} read {g} conf {conf:.2f}{hand}", file=sys.stderr)
                for sq, t, g, conf in fs.guesses:
                    print(f"{row} seed {seed} {sq}: truth {t} read {g} conf {conf:.2f} (hidden: a silent guess)",
                          file=sys.stderr)
                if not fs.located:
                    print(f"{row} seed {seed}: board not located (corner error {fs.corner_err_px:.1f}px)",
                          file=sys.stderr)
        for name in square_px_band_names():
            if name in bands:
                nb, lb, pb = bands[name]
                by_size.append([row, name, nb, 100.0 * lb / nb, 100.0 * pb / nb])
        rel += reliability_rows(row, answers)
        stages.append([row, len(stage_ms["total"]),
                       *(float(np.median(stage_ms[k])) if stage_ms[k] else "-" for k in STAGES)])
        why.append([row, n - perfect, *(causes[c] for c in CAUSES), unreadable_only,
                    f"{100.0 * clear_perfect / clear:.2f} ({clear})" if clear else "-"])
        table.append([
            row, n if not skipped else f"{n} (+{skipped} skipped)", 100.0 * located / n,
            float(np.median(corner_errs)) if corner_errs else float("nan"),
            100.0 * correct / max(1, squares), 100.0 * perfect / n, 100.0 * strict / n,
            f"{flagged}/{errors}", guesses,
            float(np.median(walls)), float(np.percentile(walls, 95)), float(np.median(cpus)),
        ])
    print(format_table(
        ["row", "frames", "located %", "corner err px", "per square %", "perfect %", "perfect % strict",
         "low-conf errs", "silent guesses", "median ms", "p95 ms", "cpu ms"],
        table,
        title=f"companion bench read --game triolet ({w}x{h}, one core{', true corners' if args.calibration else ''})"))
    print()
    print(format_table(["row", "imperfect", *CAUSES, "only unreadable tiles misread",
                        "perfect % no hand over board (frames)"], why,
                       title="boards not read perfectly, by first cause (lab/evaluate/triolet.py CAUSES)"))
    print()
    print(format_table(["row", "square px", "frames", "located %", "perfect %"], by_size,
                       title="by the size of a board square in the picture (px; the camera's distance and "
                             "resolution: lab/evaluate/triolet.py square_px_band)"))
    print()
    print(format_table(["row", "boards found", *(f"{k} ms" for k in STAGES)], stages,
                       title="median wall ms per stage over the boards the reader found "
                             "(TrioletReading.timings_ms; classify: the nets, the closer look, hands, "
                             "blank and covered tiles)"))
    print()
    print(format_table(REL_HEADERS, rel, title=REL_TITLE))
    print(machine_line())
    if crashed:
        print(f"the reader failed on {len(crashed)} frame(s), counted as not located (a bug): seeds "
              f"{', '.join(map(str, crashed))}")
        return 1
    return 0


# -- --calibration profile: one setup picture, then later pictures from the same camera ---------

PROFILE_ROWS = ("without profile", "with profile", "board nudged, with profile")
#: How far the board is pushed after calibration in the nudged row: a shift in squares, a turn in degrees.
NUDGE_SQUARES = 0.6
NUDGE_DEG = 2.0


@dataclass
class ProfileGroup:
    """One camera and board: the setup picture, later pictures (more tiles, other light and hands)
    and one later picture taken after the board was nudged."""

    setup: Any
    later: list[Any]
    nudged: Any


def profile_group(seed: int, pictures: int, size: tuple[int, int], difficulty_name: str = "normal") -> ProfileGroup:
    """A scene group fully determined by ``seed``: a fixed camera, board pose and style; the setup
    picture shows the empty board; later picture ``k`` shows the first ``(k+1)/pictures`` of a game's
    tiles under its own light and hands."""
    from dataclasses import replace

    from lab.render.difficulty import difficulty
    from lab.render.holdout import training_pool
    from lab.render.sampling import random_camera, random_hands, random_look
    from lab.render.triolet import playing_corners_mm, render_triolet, square_centre_mm
    from lab.render.triolet_board import board_outer_mm
    from lab.render.triolet_random import position_tiles, random_triolet_scene

    diff = difficulty(difficulty_name)
    pool = training_pool()
    rng = np.random.default_rng(seed)
    tiles, _ = position_tiles(rng, int(rng.integers(max(diff.tiles[0], pictures), diff.tiles[1] + 1)))
    scene = random_triolet_scene(rng, diff, pool, tiles)
    outer = board_outer_mm(scene.board_scheme, scene.square_mm)
    cam = random_camera(rng, diff, playing_corners_mm(scene), outer, size)
    setup = render_triolet(replace(scene, tiles=(), hands=()), cam, random_look(rng, diff, pool), rng)
    frames = []
    for k in range(pictures):
        shown = scene.tiles[:max(1, round(len(scene.tiles) * (k + 1) / pictures))]
        targets = [square_centre_mm(scene, t.square) for t in shown]
        hands = random_hands(rng, diff, targets, outer / 2, cam)
        frames.append(render_triolet(replace(scene, tiles=shown, hands=tuple(hands)), cam,
                                     random_look(rng, diff, pool), rng))
    # the board slides and turns on the table = the camera's aim and yaw move the other way
    angle = float(rng.uniform(0.0, 2.0 * np.pi))
    shift = NUDGE_SQUARES * scene.square_mm
    nudged_cam = replace(cam, target_mm=(cam.target_mm[0] + shift * np.cos(angle),
                                         cam.target_mm[1] + shift * np.sin(angle)),
                         yaw_deg=cam.yaw_deg + NUDGE_DEG * (1 if rng.random() < 0.5 else -1))
    nudged = render_triolet(replace(scene, hands=()), nudged_cam, random_look(rng, diff, pool), rng)
    return ProfileGroup(setup, frames, nudged)


def profile_from_picture(image: Any, game: str = "triolet") -> Any:
    """The profile ``companion calibrate board --game G IMAGE --out P.json`` writes for a new file:
    the board located automatically (``vision.locate.corners``) and its colour references sampled
    (``calibration.board_colours``); no camera section. Raises ``vision.locate.corners.NoBoardFound``."""
    from calibration.board_colours import sample_board_colours
    from calibration.profile import Profile
    from vision.locate.corners import locate_board

    corners = locate_board(game, image)
    return Profile().with_board(sample_board_colours(game, image, corners, None))


def run_profile_bench(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """``--calibration profile``: per scene group, calibrate on the setup picture, then read the later
    pictures without and with the profile, and a nudged board with it."""
    from calibration.board_colours import colour_warnings
    from lab.evaluate.triolet import score_frame
    from vision.locate import BoardNotLocatedError
    from vision.locate.corners import NoBoardFound
    from vision.read.triolet.reader import read_triolet

    if args.groups < 1 or args.per_group < 1:
        raise CliError("--groups and --per-group must be at least 1")
    stats: dict[str, dict[str, Any]] = {r: {"n": 0, "located": 0, "squares": 0, "correct": 0, "perfect": 0,
                                            "by_profile": 0, "walls": [], "cpus": []} for r in PROFILE_ROWS}
    calibrated = warned = 0
    calib_ms: list[float] = []
    for g in range(args.groups):
        seed = args.seed + g
        group = render_with_timeout(args.render_timeout * (args.per_group + 2), profile_group, seed,
                                    args.per_group, size)
        if group is None:
            print(f"group seed {seed}: rendering took too long, skipped", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        try:
            profile = profile_from_picture(group.setup.image)
        except NoBoardFound as exc:
            print(f"group seed {seed}: calibration failed on the setup picture ({exc}), skipped", file=sys.stderr)
            continue
        calib_ms.append((time.perf_counter() - t0) * 1e3)
        calibrated += 1
        warnings = colour_warnings(profile.board)
        if warnings:
            warned += 1
            print(f"group seed {seed}: calibration warning: {'; '.join(warnings)}", file=sys.stderr)
        jobs = [("without profile", fr, None) for fr in group.later]
        jobs += [("with profile", fr, profile) for fr in group.later]
        jobs.append(("board nudged, with profile", group.nudged, profile))
        for row, fr, calib in jobs:
            st = stats[row]
            c0, t1 = time.process_time(), time.perf_counter()
            try:
                reading = read_triolet(fr.image, calib)
            except BoardNotLocatedError:
                reading = None
            st["walls"].append((time.perf_counter() - t1) * 1e3)
            st["cpus"].append((time.process_time() - c0) * 1e3)
            fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
            st["n"] += 1
            st["located"] += int(fs.located)
            st["squares"] += fs.squares
            st["correct"] += fs.correct
            st["perfect"] += int(fs.perfect)
            st["by_profile"] += int(reading is not None and reading.located_by == "profile")
            if args.errors:
                why = "" if reading is None or calib is None else f" ({reading.located_by}: {reading.fit_reason})"
                print(f"{row} group {seed}: {fs.correct}/{fs.squares} squares, located {fs.located}{why}",
                      file=sys.stderr)
    if calibrated == 0:
        raise CliError("no scene group could be calibrated (see stderr)")
    table = []
    for row in PROFILE_ROWS:
        st = stats[row]
        n = max(1, st["n"])
        table.append([row, st["n"], 100.0 * st["located"] / n, 100.0 * st["correct"] / max(1, st["squares"]),
                      100.0 * st["perfect"] / n, float(np.median(st["walls"])), float(np.percentile(st["walls"], 95)),
                      float(np.median(st["cpus"])), 100.0 * st["by_profile"] / n])
    print(format_table(
        ["row", "frames", "located %", "per square %", "perfect %", "median ms", "p95 ms", "cpu ms",
         "by profile %"],
        table,
        title=(f"companion bench read --game triolet --calibration profile ({size[0]}x{size[1]}, one core; "
               f"{calibrated}/{args.groups} groups calibrated from one empty-board picture in a median "
               f"{float(np.median(calib_ms)):.0f} ms, {warned} with a colour warning)")))
    return 0
