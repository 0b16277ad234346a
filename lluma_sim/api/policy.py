"""What the Messages API stand-in answers: a pluggable `Policy`; the default plays the simulated game.

The policy writes the decision; the server adds what a model does around it (thinking blocks, a longer
reasoning text: api_talk), so any policy gets them.

`ScriptedPolicy` answers each request from that request alone, as a model does, and keeps nothing between requests.
It reads the agent's current turn (`<vision>{...}</vision>` in the last user message, tool results first, the map
hint, a survey: turn_read.py) and its own earlier turns in the history (recall.py: the screen each reply named, what
it pressed, what came of it, its memory files), and answers like a terse model. It knows energy as a player does,
from the reading's Energy gauge (a bar's fill; the real game prints no digits), falling back on printed digits only
where a screen has them and no bar was read; never from the game's truth. It writes a short reasoning text, now and
then a memory-file write, and exactly one input tool call. Where a model would, it walks with `goTo` (to the race
list, back to the career hub, and from the title screen back into the career) when the request offers the tool and
the current turn's map hint names the place as known; a goTo that stopped on a surprise is not asked for again at
once (it goes on by hand). It also answers the agent's fold request (`<summarize>`) with plain text and VLM-shaped
requests (json_schema output + an `<ocr>` block) with button JSON grounded on OCR ids (vlm.py).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, Field

from lluma_facts.request import content_blocks
from lluma_sim.api import recall, skill_read, standing, survey_read
from lluma_sim.api.recall import GOTO, Action, PastStep, args_key, texts_of
from lluma_sim.api.sight import Seer
from lluma_sim.api.turn_read import (
    GoalRead,
    career_now,
    career_turn,
    choice_score,
    choices,
    clean_vision,
    energy,
    first_choice,
    goal,
    goto_key,
    is_choice,
    map_here,
    map_places,
    mood,
    pct,
    with_values,
)
from lluma_sim.api.vlm import read_screen
from lluma_sim.words import APP_LABEL

STATS = ("Speed", "Stamina", "Power", "Guts", "Wit")
HUB = ("Rest", "Training", "Skills", "Infirmary", "Recreation", "Races")
REST_BELOW = 0.4  # the hub's rule: rest below this energy, train otherwise
GUARDED = ("Purchase Carats",)  # a careless model sometimes presses these; the agent's guard must refuse them
CARELESS = 0.3  # the chance, on a screen offering one, that it tries a guarded button first
NOTES_FILE = "sim_notes.md"
MEMORY_EVERY = 15  # turns between memory writes
_VISION = re.compile(r"<vision>(.*?)</vision>", re.DOTALL)
RACE_DAY = "Race Day"
FAIL_CAP = 15  # a raised training's failure percent above which it trains Wit instead (FACTS: bots cap 5-15%)
_FAILURE = re.compile(r"failure\s*(\d{1,3})\s*%", re.IGNORECASE)
# Hub visits from one look at the race list to the next, counted in the history since the last (a fold that drops
# the last one only delays the next): every 5th, energy permitting (else the 10th), as the player always went.
RACES_EVERY = 5


class Trip(NamedTuple):
    """A hub button the player goes to now and then. The career turn of its last trip is a line of its notes file
    (`- last Shop: turn 7`), which outlasts the history's window; a trip the history shows is not made again."""

    button: str
    every: int  # career turns from one trip to the next
    first: int  # the career turn from which the first is due (a new career's turns start again)
    closing: int = 0  # also due this many career turns before the career's last (0: none): points left add nothing


# Measured on seed 11's 78-turn career, survey off (truth vision): the shop every 30 turns made 3 trips, 40 makes 2
# ("one or two a career, a spend in each", as the old 30 hub visits gave); the skill list every 16 turns from the 9th
# makes 4 looks, as the old every-9th-hub-visit rule did there (counting hub visits in a history that folds made 2).
SHOP = Trip("Shop", every=40, first=1)  # when tired: an item for coins before a rest
# Skills: every 24 turns from the 30th when fresh (30 and 54 of 78), and one on the turn before the Final whatever the
# energy (NUMBERS §7: points left at the end add nothing; the Qualifier and Semifinal pay 100 of them before it).
SKILLS = Trip("Skills", every=24, first=30, closing=1)
TRIPS = (SHOP, SKILLS)
_LAST_TRIP = re.compile(r"^- last (\w+): turn (\d+)$", re.MULTILINE)
SKILLS_STAY = 10  # turns on the skill list before it goes back to the hub (the last two: Confirm, Learn)
# The places the player walks to with goTo, by the names the map may know them by (a screen's title).
RACE_LIST = ("Races", "Race List")
CAREER_HUB = ("Career",)
GOTO_PAUSE = 3  # turns a goTo target is left alone after it stopped on a surprise (then it may be tried again)
# What a reply names a screen by (its text's first clause): how the player recalls where it was.
SEEN_HUB = "the career hub"
SEEN_TRAINING = "training choice"
SEEN_SKILLS = "the skill list"
SEEN_SHOP = "the shop"
SEEN_EXCHANGE = "the shop asks to confirm an exchange"
WALK_ROTATION = ("Speed", "Power", "Stamina", "Speed", "Guts", "Wit")  # the training, unsurveyed, spell by spell
# Career turns a stat is trained before the next (a change of training costs a tap: raise, then train). Seed 11's
# 78-turn career, survey off, all 7 goals met each time: a new stat every turn took 350 agent turns (score 3498),
# every 6 turns 313 (3419), every 12 turns 303 (3452); the old player, one stat all career, 299 (3475).
SPELL = 12

# Told of each rest-or-train call the hub rule makes: the energy it was made on (None: not read) and whether it
# rests. The demo compares them with the game's truth (lluma_sim.gauge_audit); the policy never sees that.
RestOrTrain = Callable[[float | None, bool], None]


class Rule(NamedTuple):
    """A screen known by a button on it, and the presses a sensible model makes there, in order (those shown)."""

    marks: tuple[str, ...]  # any of these buttons marks the screen (none: `said` alone does)
    presses: tuple[str, ...]
    seen: str  # what it is, as the reply names it
    said: str = ""  # ...only when a text (or a button's meta) matches this, lowercased (a regular expression)
    read: bool = False  # the marks and presses may be read words, not plates (Android's dialog has none)
    plan: str = ""  # a runPlan asked for first (runPlan's procedures)


# A night's screens (the app's dialogs, its title screen), checked before anything else.
NIGHT = (
    Rule(("Session Error",), ("Title Screen",), "a session error: logged in elsewhere", read=True),
    Rule((), ("Wait", "Close app"), "Android says the game is not responding", said=r"(isn't|not) responding",
         read=True),
    Rule(("Connection Error",), ("Retry", "Title Screen"), "a connection error", read=True),
    Rule(("Resume",), ("Resume",), "a career in progress can be continued"),
    Rule(("Download",), ("Download",), "the game asks for a data update"),
    Rule(("Recover TP", "Use"), ("Use", "Recover TP", "Cancel"), "too little TP to start a career"),
)
AFTER_NIGHT = (  # after a shop popup (a careless press first, now and then: _night), the title screen
    Rule(("Tap to Start",), ("Tap to Start",), "the title screen", read=True),
)
# The career's dialogs, ahead of the event's story.
DIALOGS = (
    Rule(("Try Again",), ("Try Again", "Cancel"), "a lost goal race can be run again"),  # an Alarm Clock runs it
    Rule(("OK", "Close"), ("OK", "Close", "Cancel"), "a dialog is open"),
)
# Screens passed with one press, after the story and ahead of the career's own screens.
PASSAGES = (
    Rule(("Finish",), ("Finish",), "the career is over"),
    Rule(("Complete Career",), ("Complete Career",), "the career's summary"),
    Rule(("To Home",), ("To Home",), "the career is complete"),
    Rule(("Auto-Select",), ("Auto-Select",), "a new career's legacy, not chosen yet", said="empty"),
    Rule(("Borrow",), ("Borrow",), "a new career's deck, no friend's card yet"),
    Rule(("Start Career!",), ("Start Career!",), "a new career's deck, ready"),
    Rule(("View Results",), ("View Results",), "a race about to start"),  # the result is the same watched or not
    Rule(("Next",), ("Next",), "a result screen"),
    Rule(("Career",), ("Career",), "the home screen", plan="new_career"),  # the setup as one plan
)


@dataclass(frozen=True)
class HubView:
    """What the hub's choice weighs, read off the request: the bar, the mood, the goal, the trips due."""

    condition: bool  # a condition shows (the Infirmary cures it)
    rest: bool  # energy under REST_BELOW
    fresh: bool  # energy at 60% or more (or not read)
    low_mood: bool
    on_the_hub: bool  # False: decided on the training screen the coordinator opened from the hub
    shop_due: bool
    skills_due: bool
    closing: bool  # the skill list's last trip of the career is due (Trip.closing)
    races_due: bool  # every RACES_EVERY hub visits
    fans_short: bool  # a fan goal short of its fans within FANS_AHEAD turns
    goal_today: bool  # the goal is judged this turn


class HubChoice(NamedTuple):
    button: str
    when: Callable[[HubView], bool]


# The hub's choices after the goal's race (which nothing else beats), most pressing first: each whose `when` holds,
# in this order, then the fallbacks; the first the hub shows is pressed.
HUB_CHOICES = (
    HubChoice("Races", lambda h: h.fans_short and (not h.rest or h.goal_today)),  # fans to earn before the goal's turn
    HubChoice("Shop", lambda h: h.on_the_hub and h.rest and h.shop_due),  # tired: an item for coins before a rest
    HubChoice("Skills", lambda h: h.closing),  # the points left before the end, whatever the energy
    HubChoice("Infirmary", lambda h: h.condition),
    HubChoice("Rest", lambda h: h.rest),
    HubChoice("Recreation", lambda h: h.low_mood),
    HubChoice("Skills", lambda h: h.fresh and h.skills_due),  # from the training screen too: back to the hub first
    HubChoice("Races", lambda h: h.on_the_hub and h.fresh and h.races_due),
    HubChoice("Training", lambda h: True),
    HubChoice("Rest", lambda h: True),
    HubChoice("Recreation", lambda h: True),
)


class PolicyReply(BaseModel):
    """The assistant content a policy produced. stop_reason defaults from the content (tool_use or end_turn)."""

    content: list[dict[str, Any]]
    stop_reason: str | None = None
    decision: str = Field("", description="One line for the request log: what was decided and why.")
    notes: list[str] = Field(
        default_factory=list, description="What the policy considered (thinking and longer replies grow from it)."
    )


class Policy(Protocol):
    def respond(self, request: dict[str, Any]) -> PolicyReply: ...


def new_tool_id(rng: random.Random) -> str:
    return "toolu_01" + "".join(rng.choices(string.ascii_letters + string.digits, k=22))


def press(name: str) -> Action:
    return "pressButton", (("name", name),)


@dataclass(frozen=True)
class Turn:
    """One request as the player reads it: the current turn, the tools offered, its own earlier turns."""

    request: dict[str, Any]
    texts: list[str]  # the current turn's texts (vision, map hint, survey, notes)
    tools: set[str]
    past: list[PastStep]  # its earlier turns in the history, oldest first
    places: dict[str, str]  # the screens the map hint leads to: bare name -> label
    here: str  # the screen the map hint names ("" without one)
    survey: list[survey_read.Row]  # the options a survey raised and read this turn (empty without one)
    offered: set[str] | None  # the hub's buttons, when the coordinator opened training from the hub
    goto_key: str  # goTo's argument name, from the request's tool schema; "" when not offered
    rng: random.Random  # this request's dice (tool ids): seeded by the policy's seed and the request

    @property
    def last(self) -> PastStep | None:
        return self.past[-1] if self.past else None

    def since_hub(self) -> list[PastStep]:
        """The turns since the player last stood on the hub (all of them when it has not in the history)."""
        at = max((i for i, s in enumerate(self.past) if s.seen.startswith(SEEN_HUB)), default=-1)
        return self.past[at + 1:]


def went(step: PastStep, places: tuple[str, ...]) -> bool:
    """The turn pressed one of `places` (a hub button) or walked there with goTo."""
    if step.action is None:
        return False
    target = str(next((v for _, v in step.action[1]), ""))
    return step.action[0] in ("pressButton", GOTO) and target.split(" [", 1)[0] in places


def hub_visits_since(past: list[PastStep], places: tuple[str, ...]) -> int:
    """Hub visits the history shows since the player last went to one of `places` (or since it begins)."""
    visits = 0
    for step in reversed(past):
        if went(step, places):
            break
        visits += step.seen.startswith(SEEN_HUB)
    return visits


class ScriptedPolicy:
    """Plays the simulated career sensibly; each answer is a function of its request (and the seed)."""

    def __init__(self, seed: int = 0, memory_every: int = MEMORY_EVERY, screen: Seer | None = None,
                 on_rest_or_train: RestOrTrain | None = None) -> None:
        self.seed = seed
        self.screen = screen  # what a perfect reader sees on the frame being read, for VLM readings (api/vlm) only
        self.on_rest_or_train = on_rest_or_train  # told of each hub call; never asked
        self.memory_every = memory_every

    # ---- entry point ----------------------------------------------------------------------------------

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        messages = request.get("messages") or []
        last = messages[-1] if messages else {"content": ""}
        texts = texts_of(last) if last.get("role") == "user" else []
        fmt = ((request.get("output_config") or {}).get("format") or {}).get("type")
        if fmt == "json_schema" and any("<ocr>" in t for t in texts):
            return self._vlm(request, texts)
        if any(t.lstrip().startswith("<summarize>") for t in texts):
            return self._summary(messages)
        vision = None
        for t in texts:
            if m := _VISION.search(t):
                try:
                    vision = clean_vision(json.loads(m.group(1)))
                except json.JSONDecodeError:
                    vision = None
        if vision is None:
            return PolicyReply(
                content=[{"type": "text", "text": "I do not see a <vision> reading of the screen; waiting."}],
                decision="no <vision> block: text only",
            )
        return self._play(self._turn(request, texts), vision)

    def _turn(self, request: dict[str, Any], texts: list[str]) -> Turn:
        messages = request.get("messages") or []
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True, default=str).encode()).hexdigest()
        return Turn(request=request, texts=texts, tools={str(t.get("name")) for t in request.get("tools") or []},
                    past=recall.steps(messages), places=map_places(texts), here=map_here(texts),
                    survey=survey_read.rows(texts), offered=survey_read.offered(texts), goto_key=goto_key(request),
                    rng=random.Random(f"{self.seed}-{digest}"))

    # ---- game turns -----------------------------------------------------------------------------------

    def _play(self, turn: Turn, vision: dict[str, Any]) -> PolicyReply:
        request = turn.request
        choice_type = (request.get("tool_choice") or {}).get("type")
        last = turn.last
        failed = last is not None and last.action is not None and last.failed
        surprise = last is not None and last.surprise
        candidates, why = self._candidates(turn, vision)
        # Like a player: an action that changed nothing on this screen is not tried again while others remain
        # (alternating two useless actions is how a scripted player gets stuck).
        useless = _useless(turn.past)
        action = next((c for c in candidates if c not in useless and c[0] in turn.tools), None)
        if action is None:
            action = next((c for c in candidates if c[0] in turn.tools), None)
        content: list[dict[str, Any]] = []
        notes = [f"Screen: {why}.", f"Candidates: {', '.join(_describe(c) for c in candidates[:3]) or 'none'}."]
        gone = ("the walk stopped on a surprise, so going on by hand; " if surprise
                else "the last action changed nothing, so not repeating it; " if failed else "")
        reason = f"{why}; " + (f"{gone}next: {_describe(action)}." if action else "no usable tool for this screen.")
        text = reason[0].upper() + reason[1:]
        if any("<summary>" in t and "folded" in t for t in turn.texts):  # asked ahead of a fold
            text = f"<summary>{self._summary(request.get('messages') or []).content[0]['text']}</summary>\n{text}"
        content.append({"type": "text", "text": text})
        if choice_type == "none":
            return PolicyReply(content=content, decision=f"tool_choice none: {why}", notes=notes)
        trip = next((t for t in TRIPS if action == press(t.button)), None)
        memory = self._memory_call(turn, vision, why, trip)
        if memory:
            content.append(memory)
        offered = choices(vision, "(choices)" in turn.here)
        pressed = dict(action[1]).get("name") if action and action[0] == "pressButton" else None
        if pressed in offered and (kept := standing.write(request, turn.texts, offered, first_choice,
                                                          lambda: new_tool_id(turn.rng))) is not None:
            content.append(kept)  # its answer to an event it has seen the outcome of, kept for the agent to press
            memory = memory or kept
        if action is not None:
            name, args = action
            content.append({"type": "tool_use", "id": new_tool_id(turn.rng), "name": name, "input": {
                k: json.loads(x) if k == "args" else x for k, x in args}})  # a plan's args: a JSON object (args_key)
        decision = f"{_describe(action) if action else 'no action'} ({why})" + (" +memory" if memory else "")
        return PolicyReply(content=content, decision=decision, notes=notes)

    def _candidates(self, turn: Turn, v: dict[str, Any]) -> tuple[list[Action], str]:
        """Ranked actions for this screen, and a short description of what was seen."""
        buttons = [b for b in v.get("buttons") or [] if isinstance(b, dict) and b.get("name")]
        enabled = [b["name"] for b in buttons if "disabled" not in str(b.get("meta") or "").lower()]
        names = set(enabled)
        texts = " | ".join(str(t) for t in v.get("texts") or [])
        cinematic = v.get("cinematic") or "none"
        power = energy(v, texts)
        every = [press(n) for n in enabled]
        # what a button's reading says beside its name (an icon "Info" beside "Wait"): a text pressButton can tap
        said = [str(t) for t in v.get("texts") or []] + [str(b["meta"]) for b in buttons if b.get("meta")]
        night = self._night(turn, names, said)
        if night is not None:
            return [*night[0], *every], night[1]
        if "Exchange" in names and "Cancel" in names and any(t.startswith("Exchange ") for t in said):
            return [press("Exchange"), *every], SEEN_EXCHANGE  # the shop's confirm of the item it chose: the spend
        captions = [str(k).split("#")[0].strip() for k in (v.get("values") or {})]
        if any(t.startswith("Shop Coins") for t in [*said, *captions]):
            exchange = [n for n in enabled if n.split(" #")[0] == "Exchange"]
            bought = any(s.seen == SEEN_EXCHANGE and not s.failed for s in turn.since_hub())  # on this visit
            first = [press(exchange[0])] if exchange and not bought else []  # the first item the coins reach
            return [*first, *_shown(names, ("Back",)), ("back", ()), *every], SEEN_SHOP
        if (hit := _rule(DIALOGS, names, said)) is not None:
            return [*hit[0], *every], hit[1]
        if "Race" in names and "Back" in names:  # before the choices: a row "Tenno Sho (Spring)" reads like one
            return [press("Race"), *every], "the race list"
        if ("Learn" in names and "Cancel" in names) or "Reset" in names:  # before the choices: a skill row read as a
            return self._skills(turn, v, names), SEEN_SKILLS  # button ("Front Runner Corners") reads like one
        if offered := [n for n in enabled if is_choice(n)]:
            ranked = sorted(offered, key=lambda c: -choice_score(c, power))
            return [*(press(c) for c in ranked), ("advanceDialogue", ())], f"an event offers {len(offered)} choices"
        if cinematic == "dialogue":
            # Choices a reader did not frame as buttons are still tappable by their text.
            lines = [str(t) for t in v.get("texts") or [] if is_choice(str(t))]
            by_text = [press(t) for t in sorted(lines, key=lambda t: -choice_score(t, power))]
            if by_text and "(choices)" in turn.here:  # the map names the page an event's choices: pick, not tap on
                return [*by_text, ("advanceDialogue", ()), *every], "an event offers its choices as text"
            return [("advanceDialogue", ()), press("Next"), *by_text, *every], "event dialogue"
        if cinematic in ("loading", "cutscene", "cutscene_paused"):
            return [*_shown(names, ("Skip",)), ("advanceDialogue", ()), *every], f"a {cinematic} is playing"
        if (hit := _rule(PASSAGES, names, said)) is not None:
            return [*hit[0], *every], hit[1]
        if names & {*HUB, RACE_DAY}:
            now = goal(with_values(v, texts))
            seen = f"{SEEN_HUB}, energy {pct(power)}" + (f", goal: {now.text}" if now.text else "")
            return self._hub(turn, names, texts, power, v.get("mood"), now, career_now(v, texts)) + every, seen
        if sum(n in names for n in STATS) >= 3:
            first = self._hub_first(turn, v, texts, power)  # opened from the hub: what the hub would have chosen
            if turn.offered is None and _closing(turn, SKILLS, career_now(v, texts)):
                first = [("back", ())]  # landed here (a resume): the career's last skill trip first, from the hub
            return first + self._training(turn, v, names, power, texts) + [("back", ())], (
                f"{SEEN_TRAINING}, energy {pct(power)}" + (f", the hub's choice first: {_describe(first[0])}"
                                                           if first else ""))
        menu = v.get("menu") or {}
        if "Home" in names and menu.get("selected") not in (None, "Home"):
            return [press("Home"), *every], f"the {menu.get('selected')} tab, not Home"
        return ([("back", ())] if "Back" in names else []) + every + [("advanceDialogue", ())], "an unknown screen"

    def _night(self, turn: Turn, names: set[str], said: list[str]) -> tuple[list[Action], str] | None:
        """What a night brings (the app's dialogs, its title screen, the phone's launcher): the presses a sensible
        model makes there and what it saw; None when none of them is on screen."""
        if (hit := _rule(NIGHT, names, said)) is not None:
            return hit
        shown = names | set(said)
        if guarded := [n for n in GUARDED if n in names]:
            # now and then a careless model presses it first (the agent's guard must refuse it); the dice are the
            # screen's, so the same popup gets the same answer, and a refusal in the history moves it on
            careless = random.Random(f"careless-{self.seed}-{json.dumps(sorted(shown))}").random() < CARELESS
            return [*([press(guarded[0])] if careless else []), *_shown(names, ("Close",))], "a shop popup"
        if (hit := _rule(AFTER_NIGHT, names, said)) is not None:
            home = [walk] if (walk := self._goto(turn, CAREER_HUB)) else []  # back by the map's known way
            return [*home, *hit[0]], hit[1]
        if APP_LABEL in shown and sum(n in shown for n in ("Chrome", "Settings", "Camera")) >= 2:
            return [press(APP_LABEL)], "the phone's launcher: the game is not running"
        return None

    def _hub(self, turn: Turn, names: set[str], texts: str, power: float | None, badge: Any = None,
             now: GoalRead | None = None, at: tuple[int, int] | None = None, on_the_hub: bool = True) -> list[Action]:
        """The hub's rule. `on_the_hub` False: decided on the training screen the coordinator opened from the hub
        (its survey names the hub's buttons): no audit of the hub's rest-or-train call (the bar read is the training
        screen's) and no periodic visit (the skill list, the race list, the shop), which are counted in hub visits.
        `at`: the career's turn, as the header reads (the shop's clock)."""
        rest = power is not None and power < REST_BELOW
        if self.on_rest_or_train is not None and {"Rest", "Training"} <= names and on_the_hub:
            self.on_rest_or_train(power, rest)
        fresh = power is None or power >= 0.6
        h = HubView(condition="condition" in texts.lower(), rest=rest, fresh=fresh,
                    low_mood=mood(badge, texts) in ("bad", "awful"), on_the_hub=on_the_hub,
                    shop_due="Shop" in names and _due(turn, SHOP, at), skills_due=_due(turn, SKILLS, at),
                    closing=_closing(turn, SKILLS, at),
                    races_due=(hub_visits_since(turn.past, RACE_LIST) + 1) % RACES_EVERY == 0,
                    fans_short=now is not None and now.fans_short, goal_today=now is not None and now.turns_left == 0)
        # a goal's race is due: nothing else ends the turn (its tile read as "Race Day", or run together "RaceDay")
        order = [next((n for n in names if re.sub(r"\W", "", n).lower() == "raceday"), RACE_DAY),
                 *(c.button for c in HUB_CHOICES if c.when(h))]
        out: list[Action] = []
        for n in order:
            if n == "Races" and (walk := self._goto(turn, RACE_LIST)):
                out.append(walk)  # the way to the race list, walked by the map (one press today)
            if n == order[0] and n in names:
                out.append(("runPlan", (("name", "race_day"),)))  # the goal's race, its confirm and results as a plan
            if n in names:
                out.append(press(n))
        return out

    def _hub_first(self, turn: Turn, v: dict[str, Any], texts: str, power: float | None) -> list[Action]:
        """The coordinator opened the training screen from the hub (its survey says so, with the hub's buttons): the
        hub's rule decides first, and anything but Training is asked for as a plan (rest, recreation, infirmary) or
        a walk (the race list); [] when training it is, or when no hub is named."""
        if turn.offered is None:
            return []
        for kind, args in self._hub(turn, turn.offered, texts, power, v.get("mood"), goal(with_values(v, texts)),
                                    career_now(v, texts), on_the_hub=False):
            name = str(dict(args).get("name", ""))
            if kind == GOTO or name == "Training":
                return [(kind, args)] if kind == GOTO else []
            if name in survey_read.PLANNED:
                return [("runPlan", (("name", survey_read.PLANNED[name]),))]
            if name != "Training" and name in turn.offered:
                return [("back", ())]  # the goal's race, the race list, the shop: back to the hub to choose there
        return []

    def _training(self, turn: Turn, v: dict[str, Any], names: set[str], power: float | None,
                  texts: str) -> list[Action]:
        """The real screen raises a tile on the first tap and trains on a tap of the raised one (the reading's
        `selected`, else the one its last press raised). Unsurveyed, the player trains one stat for a spell of
        career turns, then the next (WALK_ROTATION; with no turn read, the tile it raised), and Wit when tired. A
        raised tile's "Failure N%" (a text or a value) above FAIL_CAP turns the choice to Wit (cheap, and its risk is
        low). Surveyed, the option worth the most rating under the cap (survey_read.best), or a rest when the cap
        leaves only options worth much less than the best one (survey_read.rest_instead)."""
        raised = str(v["selected"]) if v.get("selected") in STATS else _raised(turn)
        tired = power is not None and power < 0.5
        if turn.survey:  # a survey's table is a decision afresh: every tile in view, the most rating under the cap
            stats, now = stats_of(v), career_now(v, texts)
            target = survey_read.best(turn.survey, FAIL_CAP, stats, now)
            if survey_read.rest_instead(turn.survey, target, stats, now):
                return [("runPlan", (("name", survey_read.PLANNED["Rest"]),))]
        elif tired:
            target = "Wit"
        elif (at := career_turn(v, texts)) is not None:
            target = WALK_ROTATION[at // SPELL % len(WALK_ROTATION)]
        else:  # no turn read: the tile it raised, until it trains
            target = raised or WALK_ROTATION[len(turn.past) % len(WALK_ROTATION)]
        fail = _FAILURE.search(" | ".join([texts, *(f"{k} {x}" for k, x in (v.get("values") or {}).items())]))
        if raised == target != "Wit" and fail and int(fail.group(1)) > FAIL_CAP:
            target = "Wit"
        return [press(n) for n in dict.fromkeys([target, "Wit", "Speed", "Stamina"]) if n in names]

    def _skills(self, turn: Turn, v: dict[str, Any], names: set[str]) -> list[Action]:
        """The Learn list: the "+" plates worth marking on this screen (skill_read.picks: hints' discounts first,
        as many as the points reach) marked by one plan (runPlan skills), else the first by hand; with none here, a
        scroll for rows below while every row in view is marked or owned (a row the points do not reach says they
        ran out: skill_read.short), else Confirm and its "Learn" for all marked; back to the hub after a few turns
        here (counted in the history since the hub)."""
        stay = 1 + sum(s.seen == SEEN_SKILLS for s in turn.since_hub())
        out: list[Action] = []
        picks = skill_read.picks(v)
        home = [walk] if (walk := self._goto(turn, CAREER_HUB)) else []  # back to the hub by the map, else by hand
        if stay > SKILLS_STAY:
            return [*home, ("back", ()), press("Back")]
        if "Learn" in names and "Cancel" in names:
            return [press("Learn"), press("Cancel")]
        if picks and stay <= SKILLS_STAY - 2:  # every skill worth it the points reach, then Confirm and its Learn
            out += [("runPlan", args_key({"name": "skills", "args": {"skills": picks}})), press(picks[0])]
        elif (v.get("scroll") or {}).get("down") and not skill_read.short(v) and stay <= SKILLS_STAY - 2:
            out.append(("scrollDown", ()))
        if "Confirm" in names:
            out.append(press("Confirm"))
        return [*out, *home, ("back", ())]

    def _goto(self, turn: Turn, places: tuple[str, ...]) -> Action | None:
        """goTo the first of `places` the map hint names as a way out of here, when the request offers goTo and its
        last walk there did not stop on a surprise within GOTO_PAUSE turns; None otherwise (the player goes by
        hand). The hint's label is passed as it is (with the id it carries when two screens share a name)."""
        if not turn.goto_key:
            return None
        for place in places:
            if any(s.surprise and went(s, (place,)) for s in turn.past[-GOTO_PAUSE:]):
                continue
            if (label := turn.places.get(place.lower())) is not None:
                return GOTO, ((turn.goto_key, label),)
        return None

    def _memory_call(self, turn: Turn, vision: dict[str, Any], why: str, trip: Trip | None) -> dict[str, Any] | None:
        """Its notes file, written every `memory_every` turns (the last write is in the history) and on a trip (the
        notes keep its career turn, and the other trips' as they were)."""
        window = turn.past[-(self.memory_every - 1):] if self.memory_every > 1 else []
        if trip is None and any(NOTES_FILE in s.wrote for s in window):
            return None
        request = turn.request
        # As a model would know: the memory snapshot in system, or its own earlier call or a note in the conversation.
        exists = NOTES_FILE in json.dumps(request.get("system") or "") or NOTES_FILE in json.dumps(
            request.get("messages") or []
        )
        name = "writeMemoryFile" if exists else "createMemoryFile"
        if name not in turn.tools:
            return None
        texts = " | ".join(str(t) for t in vision.get("texts") or [])
        at = career_turn(vision, texts)
        last = _last_trips(request)
        if trip is not None and at is not None:
            last[trip.button] = at
        trips = "".join(f"- last {button}: turn {n}\n" for button, n in last.items())
        used = Counter(_describe(s.action) for s in turn.past if s.action is not None)
        top = ", ".join(f"{k} x{n}" for k, n in used.most_common(4)) or "nothing yet"
        when = "now" if at is None else f"career turn {at}"
        note = (
            f"# Sim notes\n- {when}: {why}\n- most used lately: {top}\n"
            f"{trips}- rest below 40% energy; train otherwise; OK confirms dialogs\n"
        )
        return {
            "type": "tool_use",
            "id": new_tool_id(turn.rng),
            "name": name,
            "input": {"name": NOTES_FILE, "content": note},
        }

    # ---- other request shapes -------------------------------------------------------------------------

    def _summary(self, messages: list[dict[str, Any]]) -> PolicyReply:
        calls: Counter[str] = Counter()
        screens = 0
        for m in messages:
            for b in content_blocks(m.get("content", "")):
                if b.get("type") == "tool_use":
                    inp = b.get("input") or {}
                    calls[f"{b.get('name')}({inp.get('name', '')})" if "name" in inp else str(b.get("name"))] += 1
                elif b.get("type") == "text" and m.get("role") == "user":
                    screens += 1
        top = ", ".join(f"{k} x{n}" for k, n in calls.most_common(6)) or "no actions"
        text = (
            f"Summary of {sum(1 for m in messages if m.get('role') == 'assistant')} earlier turns: "
            f"actions taken: {top}. The career loop is hub -> training or rest -> event -> hub; "
            "dialogs are confirmed with OK. Keep training while energy is above 40%, rest below it."
        )
        return PolicyReply(content=[{"type": "text", "text": text}], decision=f"summary ({screens} screens)")

    def _vlm(self, request: dict[str, Any], texts: list[str]) -> PolicyReply:
        text, decision = read_screen(request, texts, self.screen)  # lluma_sim.api.vlm
        return PolicyReply(content=[{"type": "text", "text": text}], decision=decision)


def _rule(rules: tuple[Rule, ...], names: set[str], said: list[str]) -> tuple[list[Action], str] | None:
    """The first rule whose screen this is: its plan and presses (those on screen), and what it is; None if none."""
    shown = names | set(said)
    lowered = [t.lower() for t in said]
    for rule in rules:
        marked = shown if rule.read else names
        if rule.marks and not any(m in marked for m in rule.marks):
            continue
        if rule.said and not any(re.search(rule.said, t) for t in lowered):
            continue
        plan: list[Action] = [("runPlan", (("name", rule.plan),))] if rule.plan else []
        return [*plan, *_shown(marked, rule.presses)], rule.seen
    return None


def _shown(names: set[str], presses: tuple[str, ...]) -> list[Action]:
    return [press(n) for n in presses if n in names]


def _last_trips(request: dict[str, Any]) -> dict[str, int]:
    """Button -> the career turn of its last trip, as the notes file the request shows says."""
    return {m.group(1): int(m.group(2)) for m in _LAST_TRIP.finditer(recall.memory_file(request, NOTES_FILE) or "")}


def _due(turn: Turn, trip: Trip, now: tuple[int, int] | None) -> bool:
    """A trip is due: none in the history, and the notes' last one `trip.every` career turns back or more (or in an
    earlier career), or its closing one (`_closing`); without the turn read, only a trip due from a career's start
    is (the shop). `now`: the career's turn and length as the header prints them."""
    if any(went(s, (trip.button,)) for s in turn.past):
        return False
    if now is None:
        return trip.first <= 1
    at, last = now[0], _last_trips(turn.request).get(trip.button)
    return (at >= trip.first if last is None or at < last else at >= last + trip.every) or _closing(turn, trip, now)


def _closing(turn: Turn, trip: Trip, now: tuple[int, int] | None) -> bool:
    """The trip's last of the career is due: `trip.closing` turns before its last or later, none made since."""
    if not trip.closing or now is None or any(went(s, (trip.button,)) for s in turn.past):
        return False
    at, last = now[0], _last_trips(turn.request).get(trip.button)
    due = now[1] - trip.closing
    return at >= due and (last is None or last < due or last > at)


def _useless(past: list[PastStep]) -> set[Action]:
    """The actions that changed nothing on the screen shown now: the last turns' failures, back to the last action
    that did something (a goTo's surprise changed the screen: it is the last one counted)."""
    out: set[Action] = set()
    for step in reversed(past):
        if step.action is None or not step.failed:
            break
        out.add(step.action)
        if step.surprise:
            break
    return out


def _raised(turn: Turn) -> str | None:
    """The training tile the last turn's press raised: pressed on the training screen, and the screen changed."""
    last = turn.last
    if last is None or not last.seen.startswith(SEEN_TRAINING) or last.failed or last.action is None:
        return None
    name, args = last.action
    return str(dict(args).get("name")) if name == "pressButton" and dict(args).get("name") in STATS else None


def stats_of(v: dict[str, Any]) -> dict[str, int]:
    """The trainee's stats as the reading's values give them ("Speed": "412"; a doubtful one is left out)."""
    values = v.get("values") or {}
    return {s: int(str(values[s])) for s in STATS if str(values.get(s, "")).isdigit()}


def _describe(action: Action | None) -> str:
    if action is None:
        return "none"
    name, args = action
    return f"{name}({', '.join(repr(v) for _, v in args)})"
