"""The folders a person edits sit at the top of the repository, and nothing automatic writes into them."""

from pathlib import Path

from lluma_agent.config import Config, load_config
from lluma_agent.memory.store import MemoryStore
from lluma_cli.demo import sim_environment

REPO = Path(__file__).resolve().parents[2]


def test_memory_folder_at_the_top_is_the_default_and_its_readme_states_the_budget():
    readme = (REPO / "memory" / "README.md").read_text(encoding="utf-8")
    cfg = Config()
    assert cfg.memory.dir == Path("memory")
    assert f"{cfg.memory.budget_tokens:,}" in readme
    assert "LLUMA_MEMORY__DIR" in readme
    assert load_config(env={"LLUMA_MEMORY__DIR": "/tmp/elsewhere"}).memory.dir == Path("/tmp/elsewhere")
    assert "README.md" not in [f.name for f in MemoryStore(REPO / "memory").files]


def test_the_demo_keeps_its_memory_in_its_own_log_folder(tmp_path):
    with sim_environment(1, tmp_path / "run") as sim:
        assert sim.cfg.memory.dir == tmp_path / "run" / "memory"
        assert sim.cfg.logs.dir == tmp_path / "run"
