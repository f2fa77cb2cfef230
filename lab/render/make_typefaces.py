"""Write the renderer's outline typefaces (``lab/render/typefaces/``): digits-only subsets of
system fonts, so that a seed renders the same picture on every machine. Dev-time only (needs
``fontTools``: ``pip install fonttools``)::

    python3 -m lab.render.make_typefaces [--source-dejavu DIR] [--source-liberation DIR]

The committed files were made from Debian 12's ``fonts-dejavu-core`` / ``fonts-dejavu-extra``
2.37 and ``fonts-liberation`` 1.07.4 (licences beside them). Their digits draw exactly as the full
fonts' (``tests/test_render_typefaces.py``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from lab.render.styles import TYPEFACE_DIR, TYPEFACES

#: The only characters the renderer draws in outline fonts (values and count digits).
DIGITS = "0123456789"
SYSTEM = {"DejaVu": "/usr/share/fonts/truetype/dejavu", "Liberation": "/usr/share/fonts/truetype/liberation"}


def subset_font(source: Path, out: Path) -> None:
    """Write ``source``'s digits (outlines, hinting, names kept) to ``out``."""
    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.ERROR)  # "FFTM NOT subset": a timestamp table, dropped
    opts = subset.Options()
    opts.layout_features = []
    opts.hinting = True
    opts.notdef_outline = True
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.legacy_kern = True
    font = subset.load_font(str(source), opts)
    sub = subset.Subsetter(opts)
    sub.populate(text=DIGITS)
    sub.subset(font)
    subset.save_font(font, str(out), opts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source-dejavu", default=SYSTEM["DejaVu"])
    p.add_argument("--source-liberation", default=SYSTEM["Liberation"])
    args = p.parse_args(argv)
    try:
        import fontTools  # noqa: F401
    except ImportError:
        print("make_typefaces needs fontTools: pip install fonttools", file=sys.stderr)
        return 2
    sources = {"DejaVu": Path(args.source_dejavu), "Liberation": Path(args.source_liberation)}
    for tf in TYPEFACES.values():
        if tf.kind != "ttf" or not tf.path:
            continue
        name = Path(tf.path).name
        source = sources["Liberation" if name.startswith("Liberation") else "DejaVu"] / name
        if not source.exists():
            print(f"{source}: no such font file", file=sys.stderr)
            return 2
        subset_font(source, TYPEFACE_DIR / name)
        print(f"{TYPEFACE_DIR / name}: {(TYPEFACE_DIR / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
