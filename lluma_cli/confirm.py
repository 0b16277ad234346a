"""A person in the loop for `lluma run --confirm` / `--step` (and the demo's same flags).

`--confirm`: before each input the decided action is shown (what, where it would tap, and a copy of the
screenshot with the spot marked, `DIR/confirm/turn_NNNNNN.png`) and the person answers `y` (send it), `n` (a
veto: nothing is sent, the model is told a person refused it), `e ACTION` (send the person's action instead:
`e pressButton(name=Rest)`, `e back`, `e Rest`) or `q` (nothing is sent, the run stops after this turn).
`--step`: each turn, and each later step of a goTo walk, waits for Enter (`q` stops). On a terminal the person
types; otherwise the answers are read from standard input one a line, and its end means `q`: a script can drive a
run, and a closed pipe never taps anything.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

from PIL import Image, ImageDraw

from lluma_agent import interrupts
from lluma_agent.atomic import atomic_write_bytes
from lluma_agent.device.protocol import Frame
from lluma_agent.loop.gated import InTheLoop, Verdict
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.tools.actions import PlannedAction
from lluma_cli.report.marks import MARK, mark_action

ASK = "y = do it, n = veto, e ACTION = do this instead, q = stop"


def where(planned: PlannedAction) -> str:
    """Where the action lands, in device pixels (the device picks the tap's point inside the box)."""
    b = planned.box
    if planned.kind == "key" or b is None:
        return f"sends {planned.key}"
    box = f"({b.x0},{b.y0})-({b.x1},{b.y1})"
    if planned.kind == "swipe":
        return f"swipes to scroll {planned.direction} in {box}"
    return f"taps near ({(b.x0 + b.x1) // 2},{(b.y0 + b.y1) // 2}) inside {box}"


def marked(frame: Image.Image, planned: PlannedAction) -> Image.Image:
    """The frame with the action's box outlined and its spot marked (a ring, or an arrow for a swipe)."""
    img = frame.convert("RGB")
    b = planned.box
    if b is None:
        return img
    ImageDraw.Draw(img).rectangle((b.x0, b.y0, b.x1 - 1, b.y1 - 1), outline=MARK, width=max(2, img.width // 300))
    cx, cy = (b.x0 + b.x1) // 2, (b.y0 + b.y1) // 2
    if planned.kind == "swipe":
        dy = (b.y1 - b.y0) // 3 * (-1 if planned.direction == "down" else 1)  # content moves up to scroll down
        mark_action(img, None, [cx, cy - dy, cx, cy + dy])
    else:
        mark_action(img, [cx, cy], None)
    return img


class Person:
    """Answers from a person at a terminal, or one a line from a pipe (`lluma run --confirm < answers.txt`)."""

    def __init__(self, folder: Path, inp: TextIO | None = None, out: TextIO | None = None) -> None:
        self.run = RunFolder.at(folder)
        self.folder = self.run.confirm
        self.inp, self.out = inp or sys.stdin, out or sys.stdout
        self.interactive = self.inp.isatty()
        if isinstance(self.inp, io.TextIOWrapper):
            # Bytes that are not text in the locale's encoding become U+FFFD (an answer asked again), never an
            # error that loses the answers read ahead with them.
            self.inp.reconfigure(errors="replace")

    def _read(self, prompt: str) -> str | None:
        """One answer; None at the end of input or at Ctrl+C (the first press ends the wait: `q`)."""
        print(prompt, end="" if self.interactive else "\n", file=self.out, flush=True)
        try:
            with interrupts.asking():
                line = self.inp.readline()
        except KeyboardInterrupt:
            print("\n(Ctrl+C: stopping)", file=self.out, flush=True)
            return None
        if not line:
            print("(no more answers: stopping)", file=self.out, flush=True)
            return None
        if not self.interactive:
            print(f"> {line.strip()}", file=self.out, flush=True)  # a scripted answer shows beside its question
        return line.strip()

    def save(self, turn: int, frame: Image.Image, planned: PlannedAction) -> Path:
        path = self.run.confirm_picture(turn)
        buf = io.BytesIO()
        marked(frame, planned).save(buf, "PNG")
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, buf.getvalue())
        return path

    def __call__(self, turn: int, planned: PlannedAction, frame: Frame, problem: str) -> Verdict:
        """The gate of `--confirm` (lluma_agent.loop.gated.Gate)."""
        if problem:
            print(f"turn {turn}: {problem}", file=self.out, flush=True)
        else:
            what = planned.label
            path = self.save(turn, frame.image, planned)
            print(f"turn {turn:>4} | decided {what} | {where(planned)} | marked: {path}", file=self.out, flush=True)
        while True:
            answer = self._read(f"{ASK}? ")
            if answer is None:
                return Verdict(answer="quit")
            word, _, rest = answer.partition(" ")
            word = word.lower()
            if word in ("y", "yes"):
                return Verdict(answer="yes")
            if word in ("n", "no"):
                return Verdict(answer="no")
            if word in ("q", "quit"):
                return Verdict(answer="quit")
            if word in ("e", "edit") and rest.strip():
                return Verdict(answer="edit", text=rest.strip())
            print(f"{answer!r}? answer {ASK}", file=self.out, flush=True)

    def before_turn(self, turn: int) -> bool:
        """`--step`: Enter plays the turn, `q` (or the end of input) stops."""
        answer = self._read(f"turn {turn}: Enter plays it, q stops")
        return answer is not None and answer.lower() not in ("q", "quit")

    def before_step(self, turn: int, what: str) -> bool:
        """`--step`: within a turn, each later step of a goTo walk waits for Enter too (`q` stops)."""
        answer = self._read(f"turn {turn}, {what}: Enter sends it, q stops")
        return answer is not None and answer.lower() not in ("q", "quit")


def in_the_loop(person: Person, confirm: bool, step: bool) -> InTheLoop:
    """A person in the run, for `build`: asked before each input (`confirm`), and before each turn (`step`)."""
    return InTheLoop(gate=person if confirm else None, before_turn=person.before_turn if step else None,
                     before_step=person.before_step if step else None)
