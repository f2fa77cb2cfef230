"""The phone page in a real Chromium: when the table's tokens are rotated, it says to pair again."""

from __future__ import annotations

from pathlib import Path

import api_helpers as h
import httpx
import pytest

from companion_api.app import create_app
from companion_api.tokens import rotate_tokens

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)")
def test_the_page_says_to_pair_again_after_a_rotation(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)
    db = tmp_path / "r.sqlite3"
    app = create_app(h.settings(db), use_source=False)
    with h.live_server(app, h.free_port()) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{base}/?token={app.state.tokens.viewer}")
            expect(page.locator("#conn")).to_have_class("conn on", timeout=10_000)
            new = rotate_tokens(db)
            body = {"type": "place", "player": 0, "tiles": [{"square": "A1", "value": 1}]}
            r = httpx.post(f"{base}/api/events", json=body, headers={"Authorization": f"Bearer {new.table}"})
            assert r.status_code == 201  # the event wakes the page's stream, which is told the tokens changed
            expect(page.locator("#status")).to_contain_text("tokens were changed")
            expect(page.locator("#conn")).to_have_class("conn off")
            assert page.evaluate("localStorage.getItem('viewerToken')") is None
            page.reload()  # the old link: refused, and the page says why
            expect(page.locator("#status")).to_contain_text("pairing code")
        finally:
            browser.close()
