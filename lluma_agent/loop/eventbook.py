"""What each event choice did, in the loop (issue 40): the choice kept with the state before it, the effect read
when the state shows again, and the model told on the next sighting of the event.

- `seen(out)`: every still reading. The trainee's state as last read is kept (stats from the reading before the
  turn's action plus the gains its screen previewed; energy and mood from the event screen itself, which shows
  them); a choice waiting for its outcome is settled by the first reading after it that is no event and shows
  the state again.
- `chose(action, out)`: after the model's input: a press of one of an event's choices starts the wait.
- `note(out)`: on an event's choice screen, `<events>...</events>` when the book knows the event.
The book lives beside the map (`memory.events.json`) and follows `map.enabled`: off, nothing is read or written.
Runs on one memory folder share it as they share the map (navmap/shared.py: locked, journaled, merged).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from rapidfuzz import fuzz, process

from lluma_agent.navmap.events import (
    BOOK,
    SETTLE_TURNS,
    EventBook,
    PendingChoice,
    TraineeState,
    effect,
    gains_of,
    state_of,
)
from lluma_agent.navmap.jsonfile import BookError
from lluma_agent.navmap.shared import SharedBook
from lluma_agent.runlog.turnlog import ActionLog
from lluma_vision.facts.story import event_choices, event_title
from lluma_vision.models import VisionOutput

SAME_CHOICE = 80  # rapidfuzz ratio: an OCR variant of a choice's words is the same choice (the bots match event
# titles at 0.8)
_log = logging.getLogger(__name__)


def same_name(name: str, known: Iterable[str]) -> str:
    """The known name `name` is an OCR variant of (rapidfuzz ratio at least SAME_CHOICE), else `name`."""
    best = process.extractOne(name, list(known), scorer=fuzz.ratio, score_cutoff=SAME_CHOICE)
    return best[0] if best is not None else name


def event_name(out: VisionOutput, choices: list[str]) -> str:
    """An event's name: its title, else its choices (a title the reading did not find)."""
    return event_title(out) or " / ".join(sorted(choices))


class EventMemory:
    def __init__(self, path: Path, run: str, enabled: bool, clock: Callable[[], float] = time.time) -> None:
        self.path, self.run, self.enabled, self.clock = path, run, enabled, clock
        self.book, self.notice = (EventBook(), "")
        self.file = SharedBook(path, BOOK)  # other runs on the same memory folder write it too: merged at each save
        if enabled:
            try:
                self.book, self.notice = self.file.open()
            except BookError as exc:
                self.notice = f"{exc}; nothing is kept this run"
                self.enabled = False
        if self.notice:
            _log.warning("event book: %s", self.notice)
        self.last = TraineeState()  # the trainee as last read, each fact from the latest reading that showed it
        self.expect: dict[str, float] = {}  # what the last press previewed it would add to the stats

    def seen(self, out: VisionOutput, turn: int) -> list[str]:
        """A still reading: the state kept, a waiting choice settled. Returns what the turn log must say."""
        if not self.enabled:
            return []
        told, self.notice = ([f"events: {self.notice}"] if self.notice else []), ""
        now = state_of(out)
        p = self.book.pending
        settles = not now.empty() and not event_choices(out) and out.cinematic == "none"
        if p is not None and p.run == self.run and turn > p.turn and settles:
            change = effect(p.before, now)
            if change:
                self.book.record(p.event, p.choice, change, self.clock())
                self.book.pending = None
        elif p is not None and (p.run != self.run or turn - p.turn > SETTLE_TURNS):
            self.book.pending = None  # never read again in time, or left by another run: not guessed
        if not now.empty():
            self.last = now.over(self.last)
        if now.stats:
            self.expect = {}  # the stats read now are after whatever the last press added
        return told

    def pressed(self, out: VisionOutput) -> None:
        """An input was sent on `out`: the gains it previewed (a training's "+N") are what that press may add, so
        the stats before an event that follows it are the ones last read plus these (the event screen shows none)."""
        if self.enabled:
            self.expect = gains_of(out)

    def chose(self, action: ActionLog | None, out: VisionOutput, turn: int) -> None:
        """After the model's input: a press of an event's choice waits for its outcome."""
        if not self.enabled or action is None or action.tool not in ("pressButton", "confirm"):
            return
        choices = [name for name, _ in event_choices(out)]
        if action.target not in choices:
            return
        event = self._known(event_name(out, choices))
        choice = self._known_choice(event, action.target)
        stats = {k: v + self.expect.get(k, 0.0) for k, v in self.last.stats.items()}
        before = state_of(out).over(self.last.model_copy(update={"stats": stats}))
        self.book.pending = PendingChoice(event=event, choice=choice, before=before, turn=turn, run=self.run)

    def _known(self, title: str) -> str:
        """The book's name for an event read as `title` (an OCR variant is the same event), else `title`."""
        return same_name(title, self.book.events)

    def _known_choice(self, event: str, choice: str) -> str:
        rec = self.book.events.get(event)
        return same_name(choice, rec.choices if rec else {})

    def note(self, out: VisionOutput) -> str:
        """`<events>...</events>` for an event's choice screen the book knows, else ""."""
        if not self.enabled or not (choices := event_choices(out)):
            return ""
        return self.book.told(self._known(event_name(out, [name for name, _ in choices])))

    def save(self) -> str:
        """Write the book (atomically); the problem for the turn log, or ""."""
        if not self.enabled:
            return ""
        try:
            self.book, told = self.file.save(self.book)
        except (OSError, ValueError) as exc:
            return f"events: not saved to {self.path} ({type(exc).__name__}: {exc})"
        return f"events: {told}" if told else ""
