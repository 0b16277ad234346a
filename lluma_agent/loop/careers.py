"""The running loop's careers: each is recorded in the run folder as it ends, a person is told (on the live
output, after the line of the turn that ended it), and `run.max_careers` counts them.

The fold itself (where a career ends, what it came to) is runlog/careers.py, shared with `lluma stats`. This is the
part with effects: `careers/career_NNN.json` written atomically when a career ends, the career going on written
(marked not complete) when the run stops, and a `career_ended` event for the notifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lluma_agent.atomic import atomic_write_text
from lluma_agent.loop.turn import RunTotals
from lluma_agent.notify import NotifyEvent
from lluma_agent.runlog.careers import CareerBook, CareerSummary, career_line, dump
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.turnlog import TurnLog

Notify = Callable[[NotifyEvent, dict[str, Any]], None]


class CareerTracker:
    """An `on_turn` hook (after the checkpoint): `ended` is how many careers this run has seen end."""

    def __init__(self, folder: RunFolder, notify: Notify | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.folder, self.notify, self.say = folder, notify, say
        self.book = CareerBook()
        self.before = 0  # careers that ended before a resume
        self.untold: CareerSummary | None = None  # the career the last turn ended, until `tell` says so

    @property
    def ended(self) -> int:
        """Careers ended in this sitting (a resumed run counts from its resume, as --max-turns does)."""
        return len(self.book.ended) - self.before

    def replay(self, turns: Iterable[TurnLog]) -> None:
        """A resumed run: the turns before its checkpoint, so counting goes on where it was. Records of careers that
        ended there are written again (one may have been lost to a kill between the checkpoint and its file)."""
        for t in sorted(turns, key=lambda t: t.turn):
            self.book.add(t)
        for record in self.book.ended:
            self._write(record)
        self.before = len(self.book.ended)

    def __call__(self, log: TurnLog, totals: RunTotals) -> None:
        record = self.untold = self.book.add(log)
        if record is None:
            return
        # told first (the line after this turn's own, in `tell`): a full disk refusing the record ends the run after
        # this turn (the coordinator says why), and a resume writes the record again from the turn logs
        if self.notify is not None:
            self.notify(NotifyEvent.CAREER_ENDED, record.model_dump(mode="json"))
        try:
            self._write(record)
        except OSError:
            self.tell(log, totals)  # the run stops after this turn: the career's line first, then the disk error
            raise

    def tell(self, log: TurnLog, totals: RunTotals) -> None:
        """An `on_turn` hook after the live line: the line of a career this turn ended, after the turn's own."""
        record, self.untold = self.untold, None
        if record is not None and self.say is not None:
            self.say(career_line(record))

    def close(self) -> CareerSummary | None:
        """The run stops: the career going on (if its hub showed) is written, marked not complete (complete if it
        was showing its results, after its Finish)."""
        going = self.book.in_progress()
        if going is not None:
            self._write(going)
        return going

    def _write(self, record: CareerSummary) -> None:
        self.folder.careers.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.folder.career(record.number), dump(record))
