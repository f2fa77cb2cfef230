"""Styles the Triolet reader is never trained or tuned on (the benchmark's held-out row), and the
seed ranges kept apart for training, benchmarking and tests."""

from __future__ import annotations

from lab.render.styles import StylePool

#: Whole styles kept out of training: a typeface (serif), a board scheme, a light, a tile finish.
HELD_OUT: dict[str, tuple[str, ...]] = {
    "typefaces": ("ttf_liberation_serif_bold",),
    "boards": ("navy",),
    "lights": ("warm_lamp",),
    "tiles": ("yellowed",),
}

TRAIN_SEED_BASE = 1_000_000  # training frames use seeds from here up
BENCH_SEED_BASE = 0  # the benchmark's default seeds (never used in training)


def held_out_names() -> frozenset[str]:
    """Every held-out style name."""
    return frozenset(n for names in HELD_OUT.values() for n in names)


def training_pool() -> StylePool:
    """Every style except the held-out ones."""
    return StylePool(exclude=held_out_names())


def held_out_pool() -> StylePool:
    """Frames drawn only from held-out styles (each kind restricted to its held-out names;
    kinds with nothing held out, such as tables, draw from all)."""
    return StylePool(typefaces=HELD_OUT["typefaces"], boards=HELD_OUT["boards"], tiles=HELD_OUT["tiles"],
                     lights=HELD_OUT["lights"])
