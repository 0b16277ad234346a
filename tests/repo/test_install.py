"""Installing like a Python tool: the wheel `pip install .` (and pipx, uv tool) builds holds every package
and the packaged data, and the installed `lluma` runs from it, not from this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_SKIP_ANYWHERE = shutil.ignore_patterns(".venv", ".git", "__pycache__", "build", "*.egg-info", ".pytest_cache",
                                       "report.html")


def SKIP(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out: build litter anywhere, and the top-level folders a person's runs fill
    (logs/, memory/; not lluma_agent/memory/, which is code)."""
    top = {"logs", "memory"} & set(names) if Path(folder).resolve() == REPO else set()
    return set(_SKIP_ANYWHERE(folder, names)) | top


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built the way `pip install .` builds it, from a copy (a build leaves files behind)."""
    root = tmp_path_factory.mktemp("install")
    src = root / "src"
    shutil.copytree(REPO, src, ignore=SKIP)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(root / "dist")],
                   check=True, capture_output=True, text=True, timeout=300)
    (whl,) = (root / "dist").glob("lluma-*.whl")
    return whl


def test_the_wheel_holds_every_package_and_the_system_prompt(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    packages = sorted(p.name for p in REPO.glob("lluma_*") if (p / "__init__.py").is_file())
    for pkg in packages:
        assert f"{pkg}/__init__.py" in names, pkg
    assert "lluma_agent/system_prompt.md" in names
    sources = {str(p.relative_to(REPO)) for pkg in packages for p in (REPO / pkg).rglob("*.py")}
    assert sources <= set(names), sources - set(names)
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "lluma = lluma_cli.main:main" in entry


def test_the_installed_lluma_runs_from_the_wheel(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, text=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = (
        "import lluma_agent, lluma_cli.main as m; from lluma_agent.loop.app import system_prompt; "
        "from lluma_agent.config import Config; "
        "print(lluma_agent.__file__); print(len(system_prompt(Config()))); m.main(['--version'])"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True, capture_output=True,
                         text=True, timeout=120).stdout.splitlines()
    assert out[0].startswith(str(site))  # the installed copy, not this checkout
    assert int(out[1]) > 1000  # the packaged system prompt was found
    assert out[2].startswith("lluma 0.")
