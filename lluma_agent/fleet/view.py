"""The fleet's live view: one line per device. On a terminal the lines are drawn again in place as turns come;
elsewhere (a pipe, a log file, `--json`'s stderr) each turn's line is printed once, with its device in front."""

from __future__ import annotations

from typing import TextIO

from lluma_agent.runlog.logread import clip

WIDTH = 120  # as `lluma run`'s live line (loop/app.LINE_W)
UP = "\x1b[{n}F"  # cursor to the start of the line n above
CLEAR = "\x1b[2K"


class LiveView:
    def __init__(self, out: TextIO, serials: list[str]) -> None:
        self.out, self.serials = out, serials
        self.width = max(map(len, serials), default=1)
        self.lines = {s: "starting" for s in serials}
        self.drawn = 0  # lines of the block on screen (a terminal)
        self.tty = out.isatty()

    def show(self, serial: str, text: str) -> None:
        """The device's line is now `text` (its first line: a turn's continuation lines stay in `lluma logs`)."""
        first = text.splitlines()[0] if text else ""
        self.lines[serial] = first
        if self.tty:
            self._draw()
        else:
            self._print(f"{serial:<{self.width}} {first}")

    def say(self, line: str) -> None:
        """Something that happened to the fleet (a restart, a device gone): printed above the block."""
        self._print(line)

    def _print(self, line: str) -> None:
        if self.tty and self.drawn:
            self.out.write(UP.format(n=self.drawn) + "".join(CLEAR + "\n" for _ in range(self.drawn))
                           + UP.format(n=self.drawn))
            self.drawn = 0
        self.out.write(line + "\n")
        self.out.flush()
        if self.tty:
            self._draw()

    def _draw(self) -> None:
        up = UP.format(n=self.drawn) if self.drawn else ""
        block = "".join(f"{CLEAR}{clip(f'{s:<{self.width}} {self.lines[s]}', WIDTH)}\n" for s in self.serials)
        self.out.write(up + block)
        self.out.flush()
        self.drawn = len(self.serials)
