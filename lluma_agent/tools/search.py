"""The `searchHistory` tool: the agent looks up its own earlier turns in the run's full-text index.

It answers at once, compactly: one line per hit (turn, screen, action, a short snippet), so a look-up
costs a few dozen tokens in this turn and one short line in history.
"""

from __future__ import annotations

from pydantic import Field

from lluma_agent.runlog.index import SearchError
from lluma_agent.tools.toolkit import Args, Outcome, Tool, ToolContext, ToolFailed

SNIPPET_CHARS = 90  # a hit's text as the model sees it: one line (a display choice, not measured)
SCREEN_CHARS = 40  # a hit's screen name (a display choice, not measured)


class SearchArgs(Args):
    query: str = Field(min_length=1, description='words, "a phrase", OR, NOT, prefix*')
    limit: int = Field(5, ge=1, le=20, description="most hits returned (best first)")


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class SearchHistoryTool(Tool):
    name = "searchHistory"
    description = (
        "Search every earlier turn of this run (screens, texts read, your reasoning, actions and their effects, "
        "tool results, memory changes), also turns folded out of the context. Full-text query: words (all must "
        'appear), "a phrase", OR, NOT, prefix*. Answers turn | screen | action | snippet, best first.'
    )
    args = SearchArgs

    def run(self, args: SearchArgs, ctx: ToolContext) -> Outcome:
        if ctx.search is None:
            raise ToolFailed("history search is not available in this run", log_prefix="search")
        try:
            hits = ctx.search(args.query, args.limit)
        except SearchError as exc:
            raise ToolFailed(str(exc), log_prefix="search") from None
        lines = [
            f"T{h.turn} | {_clip(h.screen, SCREEN_CHARS)} | {h.action or '-'} | {_clip(h.snippet, SNIPPET_CHARS)}"
            for h in hits
        ]
        turns = ", ".join(f"T{h.turn}" for h in hits)
        return Outcome(
            content="\n".join(lines) if lines else f"no earlier turn matches {args.query!r}",
            short=f"search {args.query!r}: {len(hits)} hit(s)" + (f" ({turns})" if hits else ""),
        )
