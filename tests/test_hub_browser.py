"""The hub's scoreboard in a real Chromium at big-screen size: a card per table, live totals and
moves, a silent table marked as such, a lost broker said on screen."""

from __future__ import annotations

import re
from pathlib import Path

import api_helpers as h
import pytest
from fastapi.testclient import TestClient
from hub_helpers import broker

from companion_api.app import create_app
from companion_api.hub.app import create_hub_app
from companion_api.hub.broker import BrokerConfig, HubLink
from companion_api.settings import Settings

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


def table(db: Path, port: int, name: str, players: list[str]) -> TestClient:
    link = HubLink(broker=BrokerConfig("127.0.0.1", port), table=name, club="club")
    return TestClient(create_app(Settings(source="sim-lite", db=db, speed=4.0, players=players, hub=link)))


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)")
def test_scoreboard_shows_each_table_live_and_marks_a_silent_one(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)
    mqtt = broker()
    hub_app = create_hub_app(BrokerConfig("127.0.0.1", mqtt.port), quiet_after=2.0)
    with mqtt, table(tmp_path / "a.sqlite3", mqtt.port, "Table 1", ["Ana", "Ben"]) as one, \
            h.live_server(hub_app, h.free_port()) as base, sync_playwright() as p:
        two = table(tmp_path / "b.sqlite3", mqtt.port, "Table 2", ["Cleo", "Dan", "Eve"])
        two.__enter__()
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(base + "/")
            expect(page.locator("#conn")).to_have_class("conn on")
            cards = page.locator("article.card")
            expect(cards).to_have_count(2)
            first = page.locator('article.card[data-table="Table 1"]')
            expect(first.locator(".players .name")).to_have_text(["Ana", "Ben"])
            expect(page.locator('article.card[data-table="Table 2"] .players li')).to_have_count(3)
            expect(first.locator(".players li.turn")).to_have_count(1)  # whose turn
            game = first.locator(".game")
            seen = int(re.search(r"move (\d+)", game.inner_text() + " move 0").group(1))  # type: ignore[union-attr]
            expect(game).not_to_contain_text(f"move {seen}", timeout=15_000)  # a move arrives live
            expect(first.locator(".last")).to_contain_text("last move: #")
            totals = [int(t) for t in first.locator(".players .total").all_inner_texts()]
            assert sum(totals) > 0
            two.__exit__(None, None, None)  # the table's companion stops: the card goes quiet
            expect(page.locator('article.card[data-table="Table 2"]')).to_have_class(re.compile(r"\bquiet\b"))
            expect(page.locator('article.card[data-table="Table 2"] .flag')).to_have_text("gone quiet")
            expect(first).not_to_have_class(re.compile(r"\bquiet\b"))
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "hub-scoreboard.png"))
            mqtt.stop()  # the hub loses the broker: the screen says its scores may be behind
            expect(page.locator("#summary")).to_contain_text("the broker cannot be reached")
            mqtt.start()
            expect(page.locator("#summary")).not_to_contain_text("cannot be reached")
        finally:
            browser.close()
    _ = one
