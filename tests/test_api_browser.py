"""The phone page in a real Chromium at phone size: a move arrives live, tapping it shows its evidence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import api_helpers as h
import pytest

from companion_api.app import create_app

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)")
def test_phone_page_shows_a_live_move_and_its_evidence(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)  # CI machines are loaded; a page that never updates still fails
    game = "triolet" if _has_triolet() else h.GAME
    factory = None if game == "triolet" else h.sim_factory(0.8)
    # The engine-only table (sim-lite) keeps this test about the page, not about vision speed.
    settings = h.settings(tmp_path / "b.sqlite3", game=game, players=["Ana", "Ben"], speed=4.0,  # a move every 0.75 s
                          source="sim-lite")
    app = create_app(settings, source_factory=factory)
    port = h.free_port()
    with h.live_server(app, port) as base, sync_playwright() as p:
        viewer = app.state.tokens.viewer
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{base}/?token={viewer}")
            expect(page.locator("#conn")).to_have_class("conn on", timeout=10_000)
            expect(page.locator("#scoreboard .score")).to_have_count(2)
            expect(page.locator("#scoreboard .name").first).to_have_text("Ana")
            expect(page.locator("#status")).not_to_have_text("connecting…")
            moves = page.locator("#moves .move")
            shown = moves.count()
            expect(moves).to_have_count(shown + 1, timeout=15_000)  # a move arrives live over SSE
            newest = moves.first  # newest first
            expect(newest).to_contain_text(f"#{shown + 1} ")
            expect(page.locator("#moves .move").last).to_contain_text("#1 Ana")
            newest.click()
            detail = page.locator("#detail")
            expect(detail).to_be_visible()
            for img in ("#ev-before", "#ev-after"):
                page.wait_for_function(f"document.querySelector('{img}').naturalWidth > 0", timeout=10_000)
            expect(page.locator("#verdict .rule").first).to_be_visible()
            expect(page.locator("#verdict")).to_contain_text("Score")
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "phone.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
            page.locator("#detail [data-close]").click()
            expect(detail).to_be_hidden()
            page.screenshot(path=str(ARTIFACTS / "phone_moves.png"))
            # a write from the page: the table token is asked once; a pass while the bag is full is refused
            page.once("dialog", lambda d: d.accept(app.state.tokens.table))
            page.locator('[data-action="pass"]').click()
            page.locator("#action-form button[type=submit]").click()
            expect(page.locator("#action-error")).to_contain_text("Not allowed", timeout=10_000)
            assert page.evaluate("localStorage.getItem('tableToken')") == app.state.tokens.table
            page.locator("#action [data-close]").click()
            # confirm the board corners on a still: tap 4 points, save (the token is remembered now)
            page.locator('[data-action="more"]').click()
            page.locator("#show-corners").click()
            still = page.locator("#still")
            page.wait_for_function("document.querySelector('#still').naturalWidth > 0", timeout=10_000)
            box = still.bounding_box()
            assert box is not None
            for fx, fy in ((0.05, 0.05), (0.95, 0.05), (0.95, 0.95), (0.05, 0.95)):
                page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            page.locator("#corners-save").click()
            expect(page.locator("#corners-msg")).to_have_text("Saved.")
            page.screenshot(path=str(ARTIFACTS / "phone_corners.png"))
            corners = app.state.store.get_meta("corners")
            assert corners is not None and len(json.loads(corners)["corners_px"]) == 4
        finally:
            browser.close()


def _has_triolet() -> bool:
    try:
        import engine

        engine.get_game("triolet")
    except Exception:
        return False
    return True


def copy_to_docs() -> None:
    """Refresh ``docs/phone.png`` from the last run (by hand: ``python3 tests/test_api_browser.py``)."""
    shutil.copy(ARTIFACTS / "phone.png", Path(__file__).resolve().parents[1] / "docs" / "phone.png")


if __name__ == "__main__":
    copy_to_docs()
