"""A heartbeat (notify.heartbeat_min): every so many minutes of a run, one `heartbeat` event saying where the career
stands (its turn, goal, the run's turns and dollars) and what its end will take at its own pace, so a night is heard
from between its start and its stop. An `on_turn` hook; off by default."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lluma_agent.loop.turn import RunTotals
from lluma_agent.notify import NotifyEvent
from lluma_agent.runlog.careers import CareerBook
from lluma_agent.runlog.turnlog import TurnLog

Notify = Callable[[NotifyEvent, dict[str, Any]], None]


class Heartbeat:
    def __init__(self, minutes: float, book: CareerBook, notify: Notify, now: Callable[[], float],
                 say: Callable[[str], None] | None = None) -> None:
        self.every_s, self.book, self.notify, self.now, self.say = minutes * 60, book, notify, now, say
        self.last = now()  # the run's start: the first beat comes one interval in

    def __call__(self, log: TurnLog, totals: RunTotals) -> None:
        if not self.every_s or self.now() - self.last < self.every_s:
            return
        self.last = self.now()
        career = self.book.now
        data = {"turn": log.turn, "game_turn": career.turn, "date": career.date, "goal": career.goal,
                "goal_status": career.status, "careers_ended": len(self.book.ended),
                "cost_usd": round(totals.cost_usd, 4),
                "to_career_end_s": career.to_end_s, "to_career_end_usd": career.to_end_usd}
        self.notify(NotifyEvent.HEARTBEAT, data)
        if self.say is not None:
            where = f"career turn {career.turn}" + (f", goal: {career.goal}" if career.goal else "") if career.turn \
                else "no career's turn shown yet"
            estimate = career.estimate()
            self.say(f"heartbeat: turn {log.turn}, {where}; ${totals.cost_usd:.4f} so far"
                     + (f"; {estimate}" if estimate else ""))
