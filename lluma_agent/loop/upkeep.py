"""Left alone with the game: keeping it running, the screens the guard handles, and the recovery ladder.

The coordinator asks this part at two points of a turn. Before the screen is read: is the game in the foreground
(`keep_game_up`: started again whenever it is not; game.start_tries failed starts in a row end the run). After it
is read: is this turn the coordinator's own (`guarded`: "Session Error" ends the run, "Recover TP" is cancelled and
waited out; `recover`: the stuck detector's rung of the ladder, or the game's clock that has not moved). What it
sends comes back as an `Acted`, pending like the model's input; the coordinator writes it into the turn. A ladder
climbed in vain recovery.max_cycles times raises `Paused`: no model call, the run ends after the turn.
"""

from __future__ import annotations

from lluma_agent.config import Config
from lluma_agent.context.stuck import Rung, StuckDetector, ladder_words, own_rungs, rung
from lluma_agent.device.app import GameApp, Started, gist
from lluma_agent.device.protocol import DeviceError
from lluma_agent.loop.acting import Acted, Actor
from lluma_agent.loop.progress import ProgressWatch
from lluma_agent.loop.sitting import Sitting
from lluma_agent.loop.stop import StopKind
from lluma_agent.loop.turn import TurnParts
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog.turnlog import GameStartLog, RecoveryLog
from lluma_agent.sentences import say
from lluma_agent.tools.guard import RECOVER_TP, SESSION_ERROR, Guard, shows
from lluma_agent.tools.toolkit import ToolContext


class Paused(Exception):
    """The recovery ladder failed recovery.max_cycles times: this turn makes no model call and the run ends after it.
    `reason` says why (the stuck reason, or a game that kept stopping)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class Upkeep:
    def __init__(self, cfg: Config, app: GameApp | None, actor: Actor, stuck: StuckDetector, progress: ProgressWatch,
                 notifier: Notifier, sitting: Sitting) -> None:
        self.cfg, self.app, self.actor, self.stuck, self.progress = cfg, app, actor, stuck, progress
        self.notifier, self.sitting = notifier, sitting
        self.own_rungs = own_rungs(app is not None)

    # ---- the game as an app ----------------------------------------------------------------------------------
    def keep_game_up(self, t: TurnParts) -> bool:
        """The game is started again whenever it is not in the foreground, whatever the ladder says (one
        `dumpsys window` a turn; an "isn't responding" dialog over the game counts as the game). False: it could
        not be started game.start_tries times in a row, and the run ends with this turn."""
        if self.app is None:
            return True
        focus = self.app.focus()
        if focus.shows(self.app.package):
            t.state = t.state.but(failed_starts=0)
            return True
        started = self._start_game(t, f"not in the foreground ({focus.who})")
        if started.ok:
            self._keeps_stopping(t)
        return started.ok or t.state.failed_starts < self.cfg.game.start_tries

    def left_the_game(self, t: TurnParts) -> bool:
        """The game is not in the foreground (crashed, or another app came over it): said in the turn; the next
        turn's `keep_game_up` starts it again."""
        if self.app is None or (focus := self.app.focus()).shows(self.app.package):
            return False
        t.failures.append(f"survey: the game left the foreground ({focus.who}); no model call, the next turn "
                          "starts it again")
        return True

    def _keeps_stopping(self, t: TurnParts) -> None:
        """A start the game needed: too many within recovery.calm_turns turns count as a ladder climbed in vain (the
        game keeps stopping, killed from outside or crashing at once); raises Paused when that pauses the run."""
        rc = self.cfg.recovery
        climb = self.stuck.game_started(t.turn, rc.max_starts, rc.calm_turns, rc.max_cycles, rc.window_s,
                                        self.sitting.clock.wall())
        if climb is None:
            return
        why = f"the game kept stopping: started again {rc.max_starts} times within {rc.calm_turns} turns"
        t.recovery = RecoveryLog(rung=climb.rung, reason=why, failed=climb.failed)
        if climb.rung == "pause":
            why += (f"; counted as the recovery ladder climbed in vain, {climb.failed} time(s) within "
                    f"{rc.window_s:g} s (recovery.max_cycles {rc.max_cycles})" if climb.failed else "")
            raise Paused(f"paused: {why}; no model call this turn", why)

    def _start_game(self, t: TurnParts, reason: str, stop_first: bool = False) -> Started:
        """Start the game; a start that worked is told (`game_restarted`). One that failed is a line in the turn,
        told to nobody: game.start_tries of them in a row end the run (stop kind game_start), which is told once."""
        assert self.app is not None
        if stop_first:
            self.app.stop()
        started = self.app.start()
        t.game_start = GameStartLog(reason=reason, ok=started.ok, command=started.command, output=started.output)
        if started.ok:
            t.state = t.state.but(failed_starts=0)
            self.notifier.send(NotifyEvent.GAME_RESTARTED, {"turn": t.turn, "reason": reason, "ok": True,
                                                            "output": started.output})
            return started
        failed = t.state.failed_starts + 1
        t.state = t.state.but(failed_starts=failed)
        said = gist(started.output) or "no output"
        t.failures.append(f"game: could not start {self.app.package} (`{started.command}`): {said}")
        if failed >= self.cfg.game.start_tries:
            tries = self.cfg.game.start_tries
            self.sitting.ends(StopKind.GAME_START, f"the game could not be started {failed} time(s) in a row "
                                                   f"(game.start_tries {tries}): {self._why_no_start(said)}")
        return started

    def _why_no_start(self, said: str) -> str:
        """The package missing, when the device says so (`pm path`), else what the last start printed."""
        assert self.app is not None
        try:
            installed = self.app.installed()
        except DeviceError:
            installed = True  # nobody can tell: the start's own words are the reason
        if not installed:
            return f"{self.app.package} is not installed on the device (game.package names another client?)"
        return f"`{self.app.start_command()}` said: {said}"

    # ---- the guard's screens ----------------------------------------------------------------------------------
    def guarded(self, t: TurnParts, ctx: ToolContext) -> Acted | None:
        """Screens the coordinator handles below the model: "Session Error" ends the run (a person must look);
        "Recover TP" is cancelled and waited out (guard.tp_recovery wait). An Acted: the turn is over."""
        assert t.reading is not None
        out = t.reading.out
        if shows(out, SESSION_ERROR):
            reason = "the game shows 'Session Error' (the account was logged in elsewhere): a person must look"
            self.sitting.ends(StopKind.SESSION, reason)
            t.failures.append(f"session: {reason}; no model call this turn")
            self.notifier.send(NotifyEvent.SESSION_ERROR, {"turn": t.turn, "reason": reason})
            return Acted()
        if self.cfg.guard.tp_recovery != "wait" or not shows(out, RECOVER_TP):
            return None
        acted = self.actor.press_own(Guard.cancel_name(out), t.reading.frame, ctx, say("recover_tp_cancelled"))
        waited = self.sitting.sleep(self.cfg.guard.tp_wait_s) if acted.pending is not None else 0.0
        t.guard.append(f"cancelled '{RECOVER_TP}' and waited {waited:.0f} s for TP to come back"
                       if acted.pending is not None else f"'{RECOVER_TP}' shown and no way to cancel it")
        return acted

    # ---- the recovery ladder ----------------------------------------------------------------------------------
    def recover(self, t: TurnParts, ctx: ToolContext) -> Acted | None:
        """The recovery ladder's rung for this turn (context/stuck.py): an Acted when the coordinator took one of its
        own rungs (no model call this turn); a ladder that failed recovery.max_cycles times raises Paused."""
        assert t.notes is not None and t.reading is not None
        stuck, rc = t.notes.stuck, self.cfg.recovery
        if stuck.level == "ok":
            self.stuck.settled(rc.calm_turns)
            return self.unmoved(t, ctx)
        if stuck.level in ("warn", "force"):
            self.stuck.unsettled()
            t.recovery = RecoveryLog(rung=stuck.level, reason=stuck.reason)
            return None
        climb = self.stuck.climb(self.app is not None, rc.max_cycles, rc.window_s, self.sitting.clock.wall())
        if climb.rung == "pause":  # stop spending money and say why (step() ends the run)
            why = stuck.reason + (f"; the recovery ladder was climbed in vain {climb.failed} time(s) within "
                                  f"{rc.window_s:g} s (recovery.max_cycles {rc.max_cycles})" if climb.failed else "")
            t.notes.stuck = stuck.model_copy(update={"reason": why})
            t.recovery = RecoveryLog(rung="pause", reason=why, failed=climb.failed)
            raise Paused(f"paused: {why}; no model call this turn", why)
        if climb.rung == "over":  # from the bottom again: the model plays this turn, told what happened
            t.recovery = RecoveryLog(rung="over", reason=stuck.reason, failed=climb.failed)
            t.notes.stuck = self.stuck.state()
            t.notes.lines.append(say("ladder_over", reason=stuck.reason, ladder=ladder_words(),
                                     failed=climb.failed, max_cycles=rc.max_cycles, window_s=rc.window_s))
            return None
        t.notes.stuck = stuck.model_copy(update={"level": "recover"})
        t.recovery = RecoveryLog(rung=climb.rung, reason=stuck.reason)
        return self._take(t, rung(climb.rung), stuck.reason, ctx)

    def unmoved(self, t: TurnParts, ctx: ToolContext) -> Acted | None:
        """The game's clock has not moved for run.progress_after turns (loop/progress.py): the ladder's own rungs, one
        a turn and no model call, then the run stops (stop kind no_progress). An Acted: the coordinator took the
        turn."""
        progress = self.progress.state()
        if progress.level not in ("climb", "stop"):
            return None
        if progress.level == "stop":
            why = (f"no progress: {progress.reason}; the recovery ladder "
                   f"({', '.join(r.what for r in self.own_rungs)}) did not move it")
            t.recovery = RecoveryLog(rung="pause", reason=why)
            t.failures.append(f"{why}; no model call this turn")
            self.sitting.ends(StopKind.NO_PROGRESS, why)
            return Acted()
        step = self.own_rungs[self.progress.c.climbed]
        self.progress.climbed()
        t.recovery = RecoveryLog(rung=step.name, reason=progress.reason)
        return self._take(t, step, f"no progress: {progress.reason}", ctx)

    def _take(self, t: TurnParts, step: Rung, reason: str, ctx: ToolContext) -> Acted:
        assert t.reading is not None
        if step.does == "input":  # back, a safe tap: the actor plans its tool and sends it like any input
            return self.actor.rung(step, t.reading.frame, ctx, reason)
        note = say("rung", reason=reason, rung=step.name)
        if step.does == "restart":  # the game stopped and started again
            started = self._start_game(t, f"recovery rung restart ({reason})", stop_first=True)
            did = (say(step.said) if started.ok
                   else say("rung_start_failed", output=gist(started.output) or "no output"))
            signature, description, brief = "restart(game)", say("rung_did", note=note, did=did), "restarted the game"
        else:  # recovery.wait_s waited (cut short by a stop)
            did = say("rung_waited", seconds=self.sitting.sleep(self.cfg.recovery.wait_s))
            signature, description, brief = "wait", say(step.said, note=note, did=did), "waited"
        # no input, pending like one: the next capture says what it did
        return Acted(errors=[f"{note}: {did}; no model call this turn"]).then(
            Actor.own(signature, description, brief, t.reading.frame, t.turn))

