"""The typefaces renderer B prints tile numerals in: TrueType files from Debian's font packages,
by file name, each with a style tag, in two groups — ``train`` (may be used to train a reader) and
``held-out`` (never used in training: the benchmark reports them on their own).

The files are not part of the repository: they come from the installed packages (``.ci/run``
installs them). POV-Ray reads TrueType outlines only, so OpenType/CFF faces (Cantarell, Cabin,
Roboto Slab, …) are not listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: Where Debian installs fonts.
FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
#: Debian packages that provide the faces below (``.ci/run`` installs them).
FONT_PACKAGES = (
    "fonts-dejavu-core", "fonts-dejavu-extra", "fonts-liberation", "fonts-liberation2", "fonts-freefont-ttf",
    "fonts-noto-core", "fonts-roboto", "fonts-open-sans", "fonts-lato", "fonts-crosextra-carlito",
    "fonts-crosextra-caladea", "fonts-croscore", "fonts-comfortaa", "fonts-oxygen", "fonts-quicksand",
    "fonts-play", "fonts-go", "fonts-paratype", "fonts-arkpandora", "fonts-sil-gentium", "fonts-hack",
)
STYLES = ("sans", "serif", "condensed", "rounded", "slab", "mono")


@dataclass(frozen=True)
class Face:
    """One TrueType file: ``file`` (name only), ``name`` (family and weight), ``style`` (``STYLES``),
    ``group`` (``train`` or ``held-out``), ``package`` (the Debian package)."""

    file: str
    name: str
    style: str
    group: str
    package: str


def _f(file: str, name: str, style: str, package: str, group: str = "train") -> Face:
    return Face(file, name, style, group, package)


#: Every face renderer B uses. The project's own renderer draws DejaVu and Liberation faces too
#: (``lab/render/typefaces``): those rows show how a known face reads when drawn another way.
FACES: tuple[Face, ...] = (
    _f("DejaVuSans-Bold.ttf", "DejaVu Sans Bold", "sans", "fonts-dejavu-core"),
    _f("DejaVuSans.ttf", "DejaVu Sans", "sans", "fonts-dejavu-core"),
    _f("DejaVuSansCondensed-Bold.ttf", "DejaVu Sans Condensed Bold", "condensed", "fonts-dejavu-extra"),
    _f("DejaVuSerif-Bold.ttf", "DejaVu Serif Bold", "serif", "fonts-dejavu-extra"),
    _f("DejaVuSerifCondensed-Bold.ttf", "DejaVu Serif Condensed Bold", "serif", "fonts-dejavu-extra"),
    _f("LiberationSans-Bold.ttf", "Liberation Sans Bold", "sans", "fonts-liberation2"),
    _f("LiberationSans-Regular.ttf", "Liberation Sans", "sans", "fonts-liberation2"),
    _f("LiberationSansNarrow-Bold.ttf", "Liberation Sans Narrow Bold", "condensed", "fonts-liberation"),
    _f("LiberationSerif-Bold.ttf", "Liberation Serif Bold", "serif", "fonts-liberation2"),
    _f("LiberationSerif-Regular.ttf", "Liberation Serif", "serif", "fonts-liberation2"),
    _f("FreeSans.ttf", "FreeSans", "sans", "fonts-freefont-ttf"),
    _f("FreeSansBold.ttf", "FreeSans Bold", "sans", "fonts-freefont-ttf"),
    _f("FreeSerifBold.ttf", "FreeSerif Bold", "serif", "fonts-freefont-ttf"),
    _f("Arimo-Bold.ttf", "Arimo Bold", "sans", "fonts-croscore"),
    _f("Tinos-Bold.ttf", "Tinos Bold", "serif", "fonts-croscore"),
    _f("Carlito-Bold.ttf", "Carlito Bold", "sans", "fonts-crosextra-carlito"),
    _f("Caladea-Bold.ttf", "Caladea Bold", "serif", "fonts-crosextra-caladea"),
    _f("Lato-Bold.ttf", "Lato Bold", "sans", "fonts-lato"),
    _f("Lato-Black.ttf", "Lato Black", "sans", "fonts-lato"),
    _f("OpenSans-Bold.ttf", "Open Sans Bold", "sans", "fonts-open-sans"),
    _f("OpenSans-Semibold.ttf", "Open Sans Semibold", "sans", "fonts-open-sans"),
    _f("OpenSans-CondBold.ttf", "Open Sans Condensed Bold", "condensed", "fonts-open-sans"),
    _f("NotoSans-Bold.ttf", "Noto Sans Bold", "sans", "fonts-noto-core"),
    _f("NotoSansDisplay-Bold.ttf", "Noto Sans Display Bold", "sans", "fonts-noto-core"),
    _f("NotoSerifDisplay-Bold.ttf", "Noto Serif Display Bold", "serif", "fonts-noto-core"),
    _f("PTS75F.ttf", "PT Sans Bold", "sans", "fonts-paratype"),
    _f("PTN77F.ttf", "PT Sans Narrow Bold", "condensed", "fonts-paratype"),
    _f("PTF55F.ttf", "PT Serif", "serif", "fonts-paratype"),
    _f("Play-Bold.ttf", "Play Bold", "sans", "fonts-play"),
    _f("Quicksand-Bold.ttf", "Quicksand Bold", "rounded", "fonts-quicksand"),
    _f("NotoSerif-Bold.ttf", "Noto Serif Bold", "serif", "fonts-noto-core"),
    _f("Hack-Bold.ttf", "Hack Bold", "mono", "fonts-hack"),
    _f("Cousine-Bold.ttf", "Cousine Bold", "slab", "fonts-croscore"),
    _f("FreeMonoBold.ttf", "FreeMono Bold", "slab", "fonts-freefont-ttf"),
    _f("VerandaBd.ttf", "Veranda Bold", "sans", "fonts-arkpandora"),
    _f("TymesBd.ttf", "Tymes Bold", "serif", "fonts-arkpandora"),
    # held out: six faces from families no other entry uses, one per style
    _f("Roboto-Bold.ttf", "Roboto Bold", "sans", "fonts-roboto", "held-out"),
    _f("Oxygen-Sans-Bold.ttf", "Oxygen Sans Bold", "sans", "fonts-oxygen", "held-out"),
    _f("Gentium-R.ttf", "Gentium", "serif", "fonts-sil-gentium", "held-out"),
    _f("RobotoCondensed-Bold.ttf", "Roboto Condensed Bold", "condensed", "fonts-roboto", "held-out"),
    _f("Comfortaa-Bold.ttf", "Comfortaa Bold", "rounded", "fonts-comfortaa", "held-out"),
    _f("Go-Mono-Bold.ttf", "Go Mono Bold", "slab", "fonts-go", "held-out"),
)
GROUPS = ("train", "held-out", "all")


@lru_cache(maxsize=1)
def _installed() -> dict[str, Path]:
    """Font file name → path, over every TrueType file under ``FONT_ROOTS``."""
    out: dict[str, Path] = {}
    for root in FONT_ROOTS:
        if root.is_dir():
            for p in sorted(root.rglob("*.ttf")):
                out.setdefault(p.name, p)
    return out


def face_path(face: Face) -> Path | None:
    """Where ``face`` is installed, or ``None``."""
    return _installed().get(face.file)


def faces(group: str) -> list[Face]:
    """The installed faces of ``group`` (``train``, ``held-out`` or ``all``); ``ValueError`` for another
    name, or when none of the group's faces is installed (naming the packages to install)."""
    if group not in GROUPS:
        raise ValueError(f"unknown typeface group {group!r}; choose {', '.join(GROUPS)}")
    chosen = [f for f in FACES if group == "all" or f.group == group]
    found = [f for f in chosen if face_path(f) is not None]
    if not found:
        pkgs = sorted({f.package for f in chosen})
        raise ValueError(f"no {group} typeface is installed (apt-get install {' '.join(pkgs)})")
    return found


def missing_faces() -> list[Face]:
    """Listed faces that are not installed."""
    return [f for f in FACES if face_path(f) is None]
