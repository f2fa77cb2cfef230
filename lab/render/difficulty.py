"""Difficulty presets ``easy|normal|hard``: the ranges random scenes, cameras and looks draw from."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

Range = tuple[float, float]


@dataclass(frozen=True)
class Difficulty:
    """Sampling ranges. Angles in degrees; ``board_fill``: board size / shorter image side."""

    name: str
    tilt_deg: Range
    yaw_deg: Range
    roll_deg: Range
    board_fill: Range
    hfov_deg: Range
    k1: Range
    k2: Range
    target_jitter: float  # look-at point offset, fraction of the board size
    full_board: bool  # keep the whole playing area inside the picture
    askew_deg: float
    offset: float  # tile off-centre, fraction of a square
    turned_prob: float  # chance a tile is turned 90/180/270°
    tiles: tuple[int, int]
    hands: tuple[int, int]
    hand_prob: float
    clutter: tuple[int, int]
    level: Range
    kelvin: Range
    white_balance: Range
    gradient: Range
    shadow: Range
    glare: tuple[int, int]
    glare_strength: Range
    vignette: Range
    noise: Range
    defocus: Range
    motion: Range
    motion_prob: float
    jpeg: tuple[int, int]
    saturation: Range
    gamma: Range
    cast_shadow_prob: float = 0.0
    sizes: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(
        "easy", tilt_deg=(0, 20), yaw_deg=(-12, 12), roll_deg=(-2, 2), board_fill=(0.75, 0.95), hfov_deg=(50, 65),
        k1=(-0.05, 0.02), k2=(0.0, 0.0), target_jitter=0.04, full_board=True, askew_deg=3, offset=0.05,
        turned_prob=0.1, tiles=(8, 40), hands=(0, 0), hand_prob=0.0, clutter=(0, 3), level=(0.9, 1.1),
        kelvin=(4500, 6500), white_balance=(0.7, 1.0), gradient=(0, 0.15), shadow=(0.1, 0.35), glare=(0, 0),
        glare_strength=(0, 0), vignette=(0, 0.1), noise=(0, 2), defocus=(0, 0), motion=(0, 0), motion_prob=0.0,
        jpeg=(85, 100), saturation=(0.95, 1.05), gamma=(0.95, 1.05)),
    "normal": Difficulty(
        "normal", tilt_deg=(0, 45), yaw_deg=(-180, 180), roll_deg=(-5, 5), board_fill=(0.55, 0.95),
        hfov_deg=(45, 72), k1=(-0.2, 0.05), k2=(-0.02, 0.05), target_jitter=0.1, full_board=True, askew_deg=6,
        offset=0.1, turned_prob=0.35, tiles=(5, 70), hands=(0, 1), hand_prob=0.4, clutter=(2, 6),
        level=(0.7, 1.15), kelvin=(2900, 7000), white_balance=(0.4, 0.9), gradient=(0, 0.35), shadow=(0.2, 0.55),
        glare=(0, 2), glare_strength=(0.15, 0.5), vignette=(0, 0.3), noise=(1, 5), defocus=(0, 1.0),
        motion=(0, 3), motion_prob=0.3, jpeg=(70, 98), saturation=(0.85, 1.15), gamma=(0.9, 1.1),
        cast_shadow_prob=0.15),
    "hard": Difficulty(
        "hard", tilt_deg=(0, 60), yaw_deg=(-180, 180), roll_deg=(-10, 10), board_fill=(0.45, 1.05),
        hfov_deg=(40, 78), k1=(-0.35, 0.1), k2=(-0.05, 0.1), target_jitter=0.18, full_board=False, askew_deg=8,
        offset=0.15, turned_prob=0.6, tiles=(1, 80), hands=(0, 2), hand_prob=0.7, clutter=(3, 10),
        level=(0.5, 1.25), kelvin=(2300, 7500), white_balance=(0.2, 0.9), gradient=(0, 0.6), shadow=(0.3, 0.75),
        glare=(0, 3), glare_strength=(0.2, 0.9), vignette=(0, 0.5), noise=(2, 10), defocus=(0, 2.2),
        motion=(0, 8), motion_prob=0.4, jpeg=(40, 95), saturation=(0.7, 1.3), gamma=(0.8, 1.2), cast_shadow_prob=0.3),
}

#: normal pictures taken from low down: 45–60° from straight above (the steepest a reader must handle)
DIFFICULTIES["steep"] = replace(DIFFICULTIES["normal"], name="steep", tilt_deg=(45, 60))


def difficulty(name: str) -> Difficulty:
    """The preset called ``name`` (``ValueError`` naming the choices otherwise)."""
    try:
        return DIFFICULTIES[name]
    except KeyError:
        raise ValueError(f"unknown difficulty {name!r}; choose {', '.join(DIFFICULTIES)}") from None
