"""The layout the original harness started from, kept only as the baseline of `bench/tokens.py`.

Every user message carries the full per-button vision JSON (name, full_label, bounds, metadata dict,
region) and the memory files; no cache_control anywhere; history is a sliding window that drops the
oldest turn every turn. A benchmark hands it to the coordinator (`run_demo(..., layout=BaselineLayout())`);
the agent itself has only the cached layout. It lives here, not in lluma_agent: nothing a run does needs it.
"""

from __future__ import annotations

import json
from typing import Any

from lluma_agent.context.history import Folded, History, PastTurn, Summarizer
from lluma_agent.loop.layouts import Current, Sent
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.calls import ToolResult
from lluma_agent.model.claude import MessagesRequest, Shape, drop_block
from lluma_vision.models import VisionData, VisionOutput


def verbose_vision_json(out: VisionOutput) -> str:
    """The original harness's per-button form, for comparison with the compact VisionData."""
    buttons = [
        {
            "name": b.name,
            "full_label": b.name,
            "bounds": {"x0": b.bounds.x0, "y0": b.bounds.y0, "x1": b.bounds.x1, "y1": b.bounds.y1},
            "metadata": {"meta": b.meta, "source": b.source, "confidence": round(b.confidence, 3)},
            "region": b.region,
        }
        for b in out.buttons
    ]
    data = {
        "buttons": buttons,
        "texts": [{"text": t.text, "bounds": t.bounds.as_list()} for t in out.loose_texts],
        "menu": out.menu.model_dump(mode="json") if out.menu else None,
        "scrollbar": out.scrollbar.model_dump(mode="json") if out.scrollbar else None,
        "cinematic": out.cinematic,
    }
    return json.dumps(data, indent=1)


class BaselineLayout:
    name = "baseline"
    cache = False

    def make_room(self, history: History, summarize: Summarizer) -> Folded | None:
        history.drop_oldest()  # a sliding window: no summary, the prefix breaks every turn
        if history.turns:
            # The new first turn's results answered the dropped reply: a tool_result without its tool_use is a
            # 400, which ended the baseline at turn 44. They stay, as one text line.
            history.turns[0] = history.turns[0].model_copy(update={"results_as_text": True})
        return None

    def fold_note(self, history: History) -> str | None:
        return None  # no fold, no summary

    def memory_text(self, history: History, memory: MemoryStore) -> str:
        return memory.block_text()  # the files as they are, every turn (in the user message)

    def finish(self, request: MessagesRequest, shape: Shape) -> MessagesRequest:
        if shape.thinking is not None and shape.thinking["type"] == "adaptive":
            return drop_block(request)  # the sliding window breaks every thinking binding, every turn
        return request

    def current(self, out: VisionOutput, view: VisionData, memory_text: str, notes: list[str]) -> Current:
        """Verbose vision and the memory files in the user message, kept in history as sent."""
        screen = verbose_vision_json(out)
        return Current(screen=screen, memory_text="", notes=[memory_text, *notes],
                       record=f"<vision>{screen}</vision>\n{memory_text}")

    def past_turn(self, history: History, turn: int, current: Current, view: VisionData, summary: str,
                  results: list[ToolResult], reply: list[dict[str, Any]], sent: Sent) -> PastTurn:
        return PastTurn(turn=turn, results=[r.block() for r in results], screen=current.record, reply=reply)
