"""The phone page in Debian's Chromium: fixing a misread by tapping (no JSON), forms that show only
their fields, no broken pictures, rule ids explained, table-display mode, dark mode, connecting."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import api_helpers as h
import pytest

from companion_api.app import create_app
from companion_api.board_watch import CellDiff, Watch

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

MISSING = f"{CHROMIUM} is missing (apt-get install chromium)"
pytestmark = [pytest.mark.browser, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=MISSING)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Any]]:
    """A Triolet table with no source (moves come from the tests), served on loopback, and a browser."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)
    db = tmp_path_factory.mktemp("board") / "b.sqlite3"
    app = create_app(h.settings(db, game="triolet", players=["Ana", "Ben"]), use_source=False)
    with h.live_server(app, h.free_port()) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield app, base, browser
        finally:
            browser.close()


def _page(app: Any, base: str, browser: Any, query: str = "", **kw: Any) -> Any:
    """A phone-sized page that already holds the table token (as after the first write)."""
    from playwright.sync_api import expect

    kw.setdefault("viewport", {"width": 390, "height": 844})
    page = browser.new_page(**kw)
    page.add_init_script(f"localStorage.setItem('tableToken', {app.state.tokens.table!r})")
    page.on("dialog", lambda d: d.accept())
    page.goto(f"{base}/?token={app.state.tokens.viewer}{query}")
    expect(page.locator("#conn")).to_have_class("conn on")
    return page


def _fresh_game(app: Any) -> Any:
    table = app.state.table
    table.new_game(table.header)
    table.manual({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 11}, {"square": "I8", "value": 3}]})
    return table


def test_a_misread_is_fixed_by_tapping_and_accepted(served: Any) -> None:
    from playwright.sync_api import expect

    app, base, browser = served
    table = _fresh_game(app)
    page = _page(app, base, browser)
    try:
        expect(page.locator('#board [data-cell="H8"]')).to_have_text("11")
        # the camera takes Ben's 1 on H9 for a wild: the table says the board differs
        table.set_watch(Watch.of("differs", (CellDiff("H9", None, {"value": None, "wild": True}),
                                             CellDiff("H10", None, {"value": 3, "wild": False}))))
        expect(page.locator("#watch")).to_contain_text("board differs from the record")
        expect(page.locator("#watch")).to_contain_text("H9, H10")
        h9 = page.locator('#board [data-cell="H9"]')
        expect(h9).to_have_class("cell differs new")
        expect(page.locator("#accept")).to_be_visible()
        h9.click()
        expect(page.locator("#picker")).to_be_visible()
        assert page.locator("textarea:visible").count() == 0  # nothing asks for JSON
        page.locator('#picker-choices [data-value="1"]').click()
        expect(page.locator("#picker")).to_be_hidden()
        expect(h9).to_have_class("cell differs fixed new")
        expect(h9).to_have_text("1")
        page.locator("#accept").click()
        expect(page.locator("#moves .move").first).to_contain_text("#2 Ben")
        expect(page.locator("#watch")).to_be_hidden()
        expect(page.locator('#board [data-cell="H9"]')).to_have_text("1")
        expect(page.locator("#scoreboard .pts").nth(1)).to_have_text("30")  # 11 + 1 + 3: a trio (T-S3)
        # a tap on a committed tile corrects its move, then the move is taken back
        page.locator('#board [data-cell="I8"]').click()
        page.locator('#picker-choices [data-value="4"]').click()
        expect(page.locator("#moves .move").first).to_contain_text("corrects #1 (Ana's move)")
        expect(page.locator('#board [data-cell="I8"]')).to_have_text("4")
        page.locator("#undo-last").click()
        expect(page.locator("#moves .move").first).to_contain_text("takes back #2 (Ben's move)")
        expect(page.locator('#board [data-cell="H9"]')).to_have_text("")
    finally:
        page.close()


def test_forms_show_only_their_fields_and_no_picture_is_broken(served: Any) -> None:
    from playwright.sync_api import expect

    app, base, browser = served
    _fresh_game(app)
    page = _page(app, base, browser)
    try:
        expected = {"undo": ["move"], "correct": ["howto"], "exchange": ["player", "count"], "pass": ["player"],
                    "wild": ["seq", "square", "value"]}
        for action, fields in expected.items():
            page.locator(f'[data-action="{action}"]').click()
            expect(page.locator("#action")).to_be_visible()
            shown = page.eval_on_selector_all(
                "#action-form [data-field]",
                "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.field)")
            assert shown == fields, action
            page.locator("#action [data-close]").click()
        # a move entered by hand has no pictures: the sheet says so and shows no image
        page.locator("#moves .move").first.click()
        expect(page.locator("#ev-none")).to_be_visible()
        expect(page.locator("#evidence")).to_be_hidden()
        broken = page.eval_on_selector_all("img", "imgs => imgs.filter(i => i.offsetParent !== null && "
                                                  "!(i.complete && i.naturalWidth > 0)).length")
        assert broken == 0
        # no frame from the camera yet: the corners sheet says so instead of showing a broken image
        page.locator("#detail [data-close]").click()
        page.locator('[data-action="more"]').click()
        page.locator("#show-corners").click()
        expect(page.locator("#corners-msg")).to_have_text("No picture of the table yet.")
        expect(page.locator("#still")).to_be_hidden()
        page.locator("#corners [data-close]").click()
        page.locator('[data-action="more"]').click()
        page.locator("#show-pair").click()
        page.wait_for_function("document.querySelector('#pair-img').naturalWidth > 0")
        expect(page.locator("#pair-img")).to_be_visible()
        page.locator("#more [data-close]").click()
        # tapping a rule id reads the rule in words
        page.locator("#moves .move .rule", has_text="T-S4").first.click()
        expect(page.locator("#rule")).to_be_visible()
        expect(page.locator("#rule-title")).to_have_text("T-S4")
        expect(page.locator("#rule-text")).to_contain_text("double or triple square")
    finally:
        page.close()


def test_table_display_mode_reads_from_across_the_table(served: Any) -> None:
    from playwright.sync_api import expect

    app, base, browser = served
    _fresh_game(app)
    page = _page(app, base, browser, "&display=table", viewport={"width": 1280, "height": 800})
    try:
        expect(page.locator("#status")).to_have_text("Ben to move · bag 72")
        expect(page.locator("#last")).to_contain_text("Last move: Ana")
        expect(page.locator("#last")).to_contain_text("pair +25")
        expect(page.locator("#moves")).to_be_hidden()
        expect(page.locator(".actions")).to_be_hidden()
        size = page.eval_on_selector("#scoreboard .pts", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 100  # about 3 cm tall on a 10" tablet: readable from 2 m
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "table_display.png"))
    finally:
        page.close()


def test_dark_mode_and_the_last_scores_while_connecting(served: Any) -> None:
    from playwright.sync_api import expect

    app, base, browser = served
    _fresh_game(app)
    page = _page(app, base, browser, color_scheme="dark")
    try:
        bg = page.eval_on_selector("body", "e => getComputedStyle(e).backgroundColor")
        rgb = [int(v) for v in bg[bg.index("(") + 1:bg.index(")")].split(",")[:3]]
        assert sum(rgb) < 120, bg  # a dark page
        app.state.table.set_watch(Watch.of("differs", (CellDiff("H9", None, {"value": 4, "wild": False}),)))
        expect(page.locator("#watch")).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone_dark.png"))
        # the server cannot be reached: the last known scores stay, marked as connecting
        page.route("**/api/stream**", lambda route: route.abort())
        page.reload()
        expect(page.locator("#scoreboard .pts").first).to_have_text("25")
        expect(page.locator("#connecting")).to_be_visible()
        expect(page.locator("#conn")).to_have_class("conn off")
    finally:
        page.close()


@pytest.mark.parametrize(("game", "cell", "seen", "choice"), [
    ("trigon", None, {"colour": "blue"}, "blue"),
    ("triominos", "0,0", {"values": [5, 5, 5]}, None),
])
def test_the_board_view_works_for_colours_and_triangle_tiles(served: Any, game: str, cell: str | None,
                                                             seen: dict[str, Any], choice: str | None) -> None:
    from playwright.sync_api import expect

    from companion_api.table import header_for

    app, base, browser = served
    table = app.state.table
    table.new_game(header_for(game, ["Ana", "Ben"]))
    try:
        cells = [cell] if cell else next(iter(table._state_copy().legal_placements())).to_json()["cells"].split(",")
        table.set_watch(Watch.of("differs", tuple(CellDiff(c, None, seen) for c in cells)))
        page = _page(app, base, browser)
        try:
            expect(page.locator("#scoreboard .name")).to_have_text(["Ana", "Ben"])  # players by name
            if choice:  # colour games: each colour's own total too
                expect(page.locator("#colour-totals")).to_contain_text("blue -110 · yellow -110")
                expect(page.locator("#scoreboard .tag").first).to_have_text("to move · blue")
            chips = page.locator("#board .cell.differs")
            expect(chips).to_have_count(len(cells))
            chips.first.click()
            expect(page.locator("#picker")).to_be_visible()
            if choice:
                expect(page.locator(f'#picker-choices [data-colour="{choice}"]')).to_be_visible()
            else:
                expect(page.locator("#picker-choices [data-corner]")).to_have_count(3)
            page.locator("#picker [data-close]").click()
            page.locator("#accept").click()
            expect(page.locator("#moves .move").first).to_contain_text("#1 Ana")
            expect(page.locator("#board .cell:not(.differs)")).to_have_count(len(cells))
        finally:
            page.close()
    finally:
        table.new_game(header_for("triolet", ["Ana", "Ben"]))
