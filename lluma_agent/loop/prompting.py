"""The request stage of a turn: making room in history (folds, with their summary call, and the
count_tokens preflight) and building the request the model sees. The layout (cached or baseline)
and the model's request shape (thinking, effort) are fixed for the run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lluma_agent.config import Config
from lluma_agent.context.history import History
from lluma_agent.context.request import build_request, current_turn, screenshot_block
from lluma_agent.loop.layouts import ContextLayout
from lluma_agent.loop.turn import Call, Notes, Observation, Prompt, Screen
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.calls import ToolResult
from lluma_agent.model.claude import ModelReply, request_shape
from lluma_agent.model.protocol import DecisionModel
from lluma_agent.sentences import say
from lluma_facts import Usage


def snapshot(block: str, turn: int) -> str:
    """The memory block as sent in the cached prefix, saying when it was taken: it is refreshed only at folds, so
    without this "(no memory files yet)" reads as a fact after the agent made one. Set once per snapshot, never
    per turn (the prefix stays cached)."""
    return block.replace("<memory>\n", f"<memory>\n{say('memory_snapshot', turn=turn)}\n", 1) if turn > 0 else block


class Prompter:
    def __init__(self, cfg: Config, model: DecisionModel, tools: list[Any], system_prompt: str, layout: ContextLayout,
                 history: History, memory: MemoryStore) -> None:
        self.cfg, self.model, self.tools, self.system_prompt = cfg, model, tools, system_prompt
        self.layout, self.history, self.memory = layout, history, memory
        self.shape = request_shape(cfg.model)
        # count_tokens once per run and after each fold, where the prefix is cached at all
        self.preflight_due = layout.cache

    def make_room(self, turn: int = 0) -> tuple[str | None, list[Call]]:
        """History over its limit: the layout folds it (summary calls are billed to this turn) and the memory
        snapshot is refreshed (taken at `turn`). The count_tokens preflight runs at the start and after a fold."""
        how: str | None = None
        calls: list[Call] = []
        if self.history.memory is None:
            self.history.memory = snapshot(self.memory.block_text(), turn)
        if self.history.needs_fold():
            folded = self.layout.make_room(self.history, self._summarize)
            self.history.memory = snapshot(self.memory.block_text(), turn)
            if folded is not None:
                how, r = folded.how, folded.reply
                self.preflight_due = self.preflight_due or self.layout.cache
                calls = [] if r is None else [Call("fold", self.cfg.model.name, r.usage, r.text, list(r.retries))]
        if self.preflight_due:
            self.preflight_due = False
            calls += self._preflight()
        return how, calls

    def ahead_of_fold(self, notes: Notes) -> Notes:
        """`notes` and, when this turn brings the next fold, the ask for the summary it needs (after make_room:
        the history as this request carries it decides)."""
        ask = self.layout.fold_note(self.history)
        return notes if ask is None else replace(notes, lines=[*notes.lines, ask])

    def _preflight(self) -> list[Call]:
        params, _ = build_request(model=self.cfg.model.name, max_tokens=1, tools=self.tools,
                                  system_prompt=self.system_prompt, memory_text=self.history.memory or "",
                                  history=[], current=[{"type": "text", "text": "."}])
        checked = self.model.preflight(params)
        if checked is None:
            return []
        ok, text = checked
        return [Call("preflight", self.cfg.model.name, Usage(), text if ok else f"error: {text}")]

    def request(self, reading: Observation, screen: Screen, notes: Notes, results: list[ToolResult]) -> Prompt:
        """This turn's request: tools | system | memory snapshot | history | the current turn (`results` owed)."""
        ctx = self.cfg.context
        # Every decision carries the screenshot, thinking included: a turn kept verbatim keeps its image until the
        # next fold (an image is a prefix block like any other; appending one leaves the cached prefix readable).
        image = screenshot_block(reading.frame.image, ctx.screenshot_max_side) if ctx.screenshots > 0 else None
        current = self.layout.current(reading.out, screen.view, self.layout.memory_text(self.history, self.memory),
                                      notes.lines)
        as_text = self.history.results_as_text()
        blocks = current_turn([r.block() for r in results], current.screen, current.notes, image, as_text)
        shape = self.shape
        params, layout = build_request(
            model=self.cfg.model.name,
            max_tokens=self.cfg.model.max_tokens,
            tools=self.tools,
            system_prompt=self.system_prompt,
            memory_text=current.memory_text,
            history=self.history.messages(),
            current=blocks,
            thinking=shape.thinking,
            output_config=shape.output_config,
            ttl=ctx.cache_ttl,
            cache=self.layout.cache,
            cache_current=shape.expects_thinking,
        )
        request = self.layout.finish(params, shape)
        return Prompt(request, layout.sections, current, results, blocks, as_text, notes.memory)

    def _summarize(self, messages: list[dict[str, Any]]) -> ModelReply:
        """The fold's summary: the same prefix as the last request (bindings hold), the decisions' tool_choice and
        a breakpoint on the last kept reply, so it reads the chunk from the cache entry an earlier decision wrote
        there. (`tool_choice: none` seeded the message part differently: the whole chunk was billed uncached,
        20,110 tokens, $0.0022 on the first fold of a Haiku 5.5 demo.) The ask says: text only, no tool call."""
        request, _ = build_request(
            model=self.cfg.model.name, max_tokens=self.cfg.model.max_tokens, tools=self.tools,
            system_prompt=self.system_prompt, memory_text=self.history.memory or "", history=messages[:-1],
            current=messages[-1]["content"], thinking=self.shape.thinking,
            output_config=self.shape.output_config,
        )
        return self.model.decide(request)
