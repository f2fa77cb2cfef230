"""Links drawn in the terminal: a QR code a phone scans off the screen."""

from __future__ import annotations

import io
from typing import Any


def print_qr(url: str, out: Any) -> None:
    """Draw ``url`` as a QR code with text blocks, for a phone to scan off the screen."""
    import qrcode

    code = qrcode.QRCode(border=2)
    code.add_data(url)
    code.make(fit=True)
    buf = io.StringIO()
    code.print_ascii(out=buf, invert=True)
    try:
        out.write(buf.getvalue())
    except UnicodeEncodeError:  # a terminal without block characters: two ASCII characters a module
        out.write("".join("".join("  " if dark else "##" for dark in row) + "\n" for row in code.get_matrix()))
    out.flush()
