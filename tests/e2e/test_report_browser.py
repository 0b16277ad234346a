"""`lluma report` in a real browser: headless Chromium (Debian's `chromium`, installed by `make test`).

The page must show its charts and its turns, run its one script (allowed by hash under the page's CSP),
and load the screenshots: Chromium renders the page and we look at the pixels and at the live DOM.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from lluma_agent.runlog import logread
from lluma_agent.runlog.turnlog import ActionLog, CostLog, ResponseLog, TurnLog, TurnLogger, VisionLog
from lluma_cli.report import page as report
from lluma_facts import Usage

SHOT = (0, 200, 0)  # the screenshots' colour: nothing else on the page is this green
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("Debian's chromium is not installed (`make test` installs it: make apt PKG=chromium)")
    return path


def browse(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, f"{page.as_uri()}#all"],
        capture_output=True, text=True, timeout=120, check=True,
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser") / "run"
    logger = TurnLogger(folder)
    for n in (1, 2, 3):
        log = TurnLog(
            turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5",
            vision=VisionLog(seen_by_model='{"buttons":[{"name":"Rest"}]}', summary=f"hub, turn {n}"),
            response=ResponseLog(text=f"Reasoning of turn {n}."),
            action=ActionLog(tool="pressButton", target="Rest", point=[300, 500], effect="screen changed (distance 9)"),
            usage=Usage(input_tokens=500 * n, cache_read_input_tokens=4000, output_tokens=40),
            cost=CostLog(turn_usd=0.001 * n, run_usd=0.001 * n * (n + 1) / 2),
        )
        log.frame.path = logger.save_screenshot(n, Image.new("RGB", (540, 960), SHOT))
        logger.write(log)
    logger.close()
    out = folder / "report.html"
    out.write_text(report.render(logread.load_run(folder)), encoding="utf-8")
    return out


def test_chromium_shows_the_charts_and_every_turn_opened_by_the_pages_script(page: Path, tmp_path: Path) -> None:
    dom = browse(page, tmp_path / "profile", "--dump-dom").stdout
    assert dom.count("<svg") == 2 and "Input tokens per turn" in dom and "Cumulative cost" in dom
    turns = re.findall(r'<details class="turn[^"]*" id="t\d+"[^>]*>', dom)
    assert len(turns) == 3
    # `#all` asks the page's script to open every turn: it ran, so the CSP allowed it by its hash
    assert all(" open" in t for t in turns), turns
    assert "Reasoning of turn 3." in dom


def test_chromium_loads_the_screenshots(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    browse(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,2600")
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)

    def count(rgb: tuple[int, int, int], tol: int) -> int:
        return int((np.abs(pixels - np.array(rgb)).max(axis=2) < tol).sum())

    # three opened turns with a thumbnail each (a broken image would show an icon and its alt text instead)
    assert count(SHOT, 30) > 3 * 100 * 100
    assert count((0x2E, 0x86, 0xAB), 12) > 200  # the cache-read bars of the token chart are drawn


def test_report_gif_writes_a_timeline_the_page_shows_and_screens_open_full_size(
        page: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(page.parent, run)
    (run / "memory_at_turn_000003.json").write_text("{}")  # turn 3 began a resumed sitting
    assert report.main([str(run), "--gif", "-o", str(tmp_path / "gif.html")]) == 0
    assert f"wrote {run / 'timeline.gif'}" in capsys.readouterr().out
    with Image.open(run / "timeline.gif") as gif:
        assert gif.format == "GIF" and gif.is_animated and gif.n_frames == 3  # one frame per turn
    dom = browse(tmp_path / "gif.html", tmp_path / "profile", "--dump-dom").stdout
    assert '<img class="timeline" src="data:image/gif;base64,' in dom
    assert dom.count('class="tag resume"') == 1 and 'id="t3"' in dom.split('class="tag resume"')[0]
    links = re.findall(r'<a class="full" href="([^"]+)"', dom)
    assert len(links) == 3 and all((tmp_path / link).is_file() for link in links)  # relative to the page
    shot = tmp_path / "gif.png"
    browse(tmp_path / "gif.html", tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,2600")
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    band = int((np.abs(pixels - np.array((24, 24, 24))).max(axis=2) < 4).sum())
    assert band > 3000  # the timeline's caption band is drawn: the GIF loaded under the page's CSP
