"""What the Messages API stand-in answers: a pluggable `Policy`; the default plays the simulated game.

The policy writes the decision; the server adds what a model does around it (thinking blocks, a longer
reasoning text: api_talk), so any policy gets them.

`ScriptedPolicy` reads the agent's current turn (`<vision>{...}</vision>` in the last user message, tool
results first) and answers like a terse model. It knows energy as a player does, from the reading's Energy gauge
(a bar's fill; the real game prints no digits), falling back on printed digits only where a screen has them and no
bar was read; never from the game's truth. It: a short reasoning text, occasionally a memory-file write,
and exactly one input tool call. Where a model would, it walks with `goTo` (to the race list, back to the career
hub, and from the title screen back into the career) when the request offers the tool and the current turn's map
hint names the place as known; a goTo that stopped
on a surprise is not asked for again at once (it goes on by hand). It also answers the agent's fold request
(`<summarize>`) with plain text and VLM-shaped requests (json_schema output + an `<ocr>` block) with button JSON
grounded on OCR ids.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from lluma_facts.request import content_blocks
from lluma_sim.api import standing, survey_read
from lluma_sim.api.sight import Seer
from lluma_sim.api.vlm import read_screen
from lluma_sim.words import APP_LABEL

STATS = ("Speed", "Stamina", "Power", "Guts", "Wit")
HUB = ("Rest", "Training", "Skills", "Infirmary", "Recreation", "Races")
REST_BELOW = 0.4  # the hub's rule: rest below this energy, train otherwise
TABS = ("Enhance", "Story", "Home", "Race", "Scout")
CONFIRMING = ("OK", "Confirm", "Yes", "Close", "Next", "Finish")
GUARDED = ("Purchase Carats",)  # a careless model sometimes presses these; the agent's guard must refuse them
CARELESS = 0.3  # the chance, on a screen offering one, that it tries a guarded button first
NOTES_FILE = "sim_notes.md"
MEMORY_EVERY = 15  # turns between memory writes
_VISION = re.compile(r"<vision>(.*?)</vision>", re.DOTALL)
_ENERGY = re.compile(r"energy\D{0,12}?(\d{1,3})\s*/\s*(\d{2,3})", re.IGNORECASE)
_FRACTION = re.compile(r"(?<!turn )(?<!\d)(\d{1,3})\s*/\s*100\b", re.IGNORECASE)
_MOOD = re.compile(r"mood\W*(awful|bad|normal|good|great)", re.IGNORECASE)
_MOODS = ("awful", "bad", "normal", "good", "great")
RACE_DAY = "Race Day"
FAIL_CAP = 15  # a raised training's failure percent above which it trains Wit instead (FACTS: bots cap 5-15%)
_FAILURE = re.compile(r"failure\s*(\d{1,3})\s*%", re.IGNORECASE)
SHOP_EVERY = 30  # hub visits between trips to the shop (one or two a 78-turn career; a spend in each)
FANS_AHEAD = 4  # turns before a fan goal's turn from which a player short of fans races for them
_GOAL_FANS = re.compile(r"earn\s+([\d,]+)\s+fans", re.IGNORECASE)
_TURNS_LEFT = re.compile(r"(\d+)\s+turn\(?s?\)?\s+left", re.IGNORECASE)
_FANS = re.compile(r"fans\s*\|\s*([\d,]+)", re.IGNORECASE)
GOTO = "goTo"
# The places the player walks to with goTo, by the names the map may know them by (a screen's title).
RACE_LIST = ("Races", "Race List")
CAREER_HUB = ("Career",)
GOTO_PAUSE = 3  # turns a goTo target is left alone after it stopped on a surprise (then it may be tried again)
_MAP_HINT = re.compile(r"<map>(.*?)</map>", re.DOTALL)
_WAY_TO = re.compile(r"->\s*([^,;]+?)\s*(?=,|;|$)")  # a way out's destination in `ways out: Races -> Races, ...`
_SURPRISE = re.compile(r"surprise|unexpected|stopped", re.IGNORECASE)

# Told of each rest-or-train call the hub rule makes: the energy it was made on (None: not read) and whether it
# rests. The demo compares them with the game's truth (lluma_sim.gauge_audit); the policy never sees that.
RestOrTrain = Callable[[float | None, bool], None]


# A planned move: (tool name, its arguments as a hashable tuple), how the policy compares moves.
Action = tuple[str, tuple[Any, ...]]

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


def _texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in content_blocks(message.get("content", "")) if b.get("type") == "text"]


def _tool_result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


class ScriptedPolicy:
    """Plays the simulated career sensibly; deterministic for a given seed and request sequence."""

    def __init__(self, seed: int = 0, memory_every: int = MEMORY_EVERY, screen: Seer | None = None,
                 on_rest_or_train: RestOrTrain | None = None) -> None:
        self.screen = screen  # what a perfect reader sees on the frame being read, for VLM readings (api/vlm) only
        self.on_rest_or_train = on_rest_or_train
        self.rng = random.Random(seed)
        self.memory_every = memory_every
        self.turns = 0
        self.hub_visits = 0
        self.skills_turns = 0
        self.presses: Counter[str] = Counter()
        self._seen = ""  # the screen the last request showed, and the actions that did nothing on it
        self._useless: set[Action] = set()
        self._careless_rng = random.Random(f"careless-{seed}")  # its own dice: tool ids stay as they were
        self._careless: tuple[str, bool] = ("", False)  # a screen, and whether it tries a guarded button there
        self._places: dict[str, str] = {}  # the screens the current turn's map hint leads to: bare name -> label
        self._here = ""  # the screen the current turn's map hint names ("" without one)
        self._survey: list[survey_read.Row] = []  # the current turn's survey table (empty without one)
        self._offered: set[str] | None = None  # the hub's buttons, when the coordinator opened training from it
        self._goto_key = ""  # goTo's argument name, from the request's tool schema; "" when not offered
        self._goto_paused: dict[str, int] = {}  # target -> the policy turn its goTo stopped on a surprise
        self._target: str | None = None  # the training chosen on this visit to the training screen
        self._raised: str | None = None  # the tile this visit's last press raised
        self._shopped = -SHOP_EVERY  # the hub visit it last went to the shop
        self._bought = False  # bought an item on this visit to the shop

    # ---- entry point ----------------------------------------------------------------------------------

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        messages = request.get("messages") or []
        last = messages[-1] if messages else {"content": ""}
        texts = _texts(last) if last.get("role") == "user" else []
        fmt = ((request.get("output_config") or {}).get("format") or {}).get("type")
        if fmt == "json_schema" and any("<ocr>" in t for t in texts):
            return self._vlm(request, texts)
        if any(t.lstrip().startswith("<summarize>") for t in texts):
            return self._summary(messages)
        vision = None
        for t in texts:
            if m := _VISION.search(t):
                try:
                    vision = _clean_vision(json.loads(m.group(1)))
                except json.JSONDecodeError:
                    vision = None
        if vision is None:
            return PolicyReply(
                content=[{"type": "text", "text": "I do not see a <vision> reading of the screen; waiting."}],
                decision="no <vision> block: text only",
            )
        return self._play(request, messages, vision)

    # ---- game turns -----------------------------------------------------------------------------------

    def _play(self, request: dict[str, Any], messages: list[dict[str, Any]], vision: dict[str, Any]) -> PolicyReply:
        tools = {t.get("name") for t in request.get("tools") or []}
        choice_type = (request.get("tool_choice") or {}).get("type")
        last_action, failed = self._last_outcome(messages)
        self._places, self._goto_key = _map_places(_texts(messages[-1])), _goto_key(request)
        self._here = _map_here(_texts(messages[-1]))
        self._survey = survey_read.rows(_texts(messages[-1]))  # the options a survey raised and read this turn
        self._offered = survey_read.offered(_texts(messages[-1]))  # the hub's buttons when it opened the survey
        surprise = last_action is not None and last_action[0] == GOTO and failed
        if surprise and last_action is not None:
            target = str(dict(last_action[1]).get(self._goto_key, ""))
            self._goto_paused[target.split(" [", 1)[0]] = self.turns
        candidates, why = self._candidates(vision)
        # Like a player: an action that changed nothing on this screen is not tried again while others remain
        # (alternating two useless actions is how a scripted player gets stuck).
        screen = json.dumps([sorted(str(b.get("name")) for b in vision.get("buttons") or [] if isinstance(b, dict)),
                             vision.get("cinematic"), vision.get("texts")], sort_keys=True, default=str)
        if screen != self._seen:
            self._seen, self._useless = screen, set()
        if failed and last_action is not None:
            self._useless.add(last_action)
        action = next((c for c in candidates if c not in self._useless and c[0] in tools), None)
        if action is None:
            action = next((c for c in candidates if c[0] in tools), None)
        self.turns += 1
        content: list[dict[str, Any]] = []
        notes = [f"Screen: {why}.", f"Candidates: {', '.join(_describe(c) for c in candidates[:3]) or 'none'}."]
        went = ("the walk stopped on a surprise, so going on by hand; " if surprise
                else "the last action changed nothing, so not repeating it; " if failed else "")
        reason = f"{why}; " + (
            f"{went}next: {_describe(action)}."
            if action
            else "no usable tool for this screen."
        )
        text = reason[0].upper() + reason[1:]
        if any("<summary>" in t and "folded" in t for t in _texts(messages[-1])):  # asked ahead of a fold
            text = f"<summary>{self._summary(messages).content[0]['text']}</summary>\n{text}"
        content.append({"type": "text", "text": text})
        if choice_type == "none":
            return PolicyReply(content=content, decision=f"tool_choice none: {why}", notes=notes)
        memory = self._memory_call(request, tools, vision, why)
        if memory:
            content.append(memory)
        offered = _choices(vision, "(choices)" in self._here)
        pressed = dict(action[1]).get("name") if action and action[0] == "pressButton" else None
        if pressed in offered and (kept := standing.write(request, _texts(messages[-1]), offered, _first_choice,
                                                          lambda: new_tool_id(self.rng))) is not None:
            content.append(kept)  # its answer to an event it has seen the outcome of, kept for the agent to press
            memory = memory or kept
        if action is not None:
            name, args = action
            content.append({"type": "tool_use", "id": new_tool_id(self.rng), "name": name, "input": dict(args)})
            self.presses[_describe(action)] += 1
        decision = f"{_describe(action) if action else 'no action'} ({why})" + (" +memory" if memory else "")
        return PolicyReply(content=content, decision=decision, notes=notes)

    def _last_outcome(self, messages: list[dict[str, Any]]) -> tuple[Action | None, bool]:
        """The previous input action (from the last assistant message) and whether it failed or did nothing."""
        if len(messages) < 2 or messages[-2].get("role") != "assistant":
            return None, False
        uses = [b for b in content_blocks(messages[-2].get("content", "")) if b.get("type") == "tool_use"]
        inputs = [b for b in uses if b.get("name") not in ("createMemoryFile", "writeMemoryFile", "deleteMemoryFile")]
        if not inputs:
            return None, False
        use = inputs[0]
        action = (str(use.get("name")), _args_key(use.get("input")))
        for b in content_blocks(messages[-1].get("content", "")):
            if b.get("type") == "tool_result" and b.get("tool_use_id") == use.get("id"):
                text = _tool_result_text(b).lower()
                surprise = action[0] == GOTO and bool(_SURPRISE.search(text))
                return action, bool(b.get("is_error")) or surprise or "unchanged" in text or "not executed" in text
        return action, False

    def _candidates(self, v: dict[str, Any]) -> tuple[list[Action], str]:
        """Ranked actions for this screen, and a short description of what was seen."""
        buttons = [b for b in v.get("buttons") or [] if isinstance(b, dict) and b.get("name")]
        enabled = [b["name"] for b in buttons if "disabled" not in str(b.get("meta") or "").lower()]
        names = set(enabled)
        texts = " | ".join(str(t) for t in v.get("texts") or [])
        cinematic = v.get("cinematic") or "none"
        energy = _energy(v, texts)
        press = [("pressButton", (("name", n),)) for n in enabled]
        out: list[Action] = []

        def add(name: str) -> None:
            if name in names:
                out.append(("pressButton", (("name", name),)))

        # what a button's reading says beside its name (an icon "Info" beside "Wait"): a text pressButton can tap
        said = [str(t) for t in v.get("texts") or []] + [str(b["meta"]) for b in buttons if b.get("meta")]
        night = self._night(names, said, add)
        if night:
            if night == "the title screen" and (walk := self._goto(CAREER_HUB)):
                out.insert(0, walk)  # back into the career by the map's known way (a stop on a surprise: by hand)
            return out + press, night
        choices = [n for n in enabled if _is_choice(n)]
        if "Try Again" in names:  # a goal race lost: an Alarm Clock runs it again, else the career ends
            add("Try Again")
            add("Cancel")
            return out + press, "a lost goal race can be run again"
        if "Exchange" in names and "Cancel" in names and any(t.startswith("Exchange ") for t in said):
            add("Exchange")  # the shop's confirm of an item it chose: the spend is this decision's
            self._bought = True
            return out + press, "the shop asks to confirm an exchange"
        captions = [str(k).split("#")[0].strip() for k in (v.get("values") or {})] if isinstance(
            v.get("values"), dict) else []
        if any(t.startswith("Shop Coins") for t in [*said, *captions]):
            exchange = [n for n in enabled if n.split(" #")[0] == "Exchange"]
            if exchange and not self._bought:
                add(exchange[0])  # the first item it can afford: Vita 20 (energy) when the coins reach
            add("Back")
            return out + [("back", ())] + press, "the shop"
        if any(n in names for n in ("OK", "Close")):
            add("OK")
            add("Close")
            add("Cancel")
            return out + press, "a dialog is open"
        if choices:
            ranked = sorted(choices, key=lambda c: -_choice_score(c, energy))
            out += [("pressButton", (("name", c),)) for c in ranked]
            return out + [("advanceDialogue", ())], f"an event offers {len(choices)} choices"
        if cinematic == "dialogue":
            # Choices a reader did not frame as buttons are still tappable by their text.
            said = [str(t) for t in v.get("texts") or [] if _is_choice(str(t))]
            by_text = [("pressButton", (("name", t),)) for t in sorted(said, key=lambda t: -_choice_score(t, energy))]
            if by_text and "(choices)" in self._here:  # the map names the page an event's choices: pick, not tap on
                return [*by_text, ("advanceDialogue", ()), *press], "an event offers its choices as text"
            return [("advanceDialogue", ()), ("pressButton", (("name", "Next"),)), *by_text, *press], "event dialogue"
        if cinematic in ("loading", "cutscene", "cutscene_paused"):
            add("Skip")
            return out + [("advanceDialogue", ())] + press, f"a {cinematic} is playing"
        if "Finish" in names:
            add("Finish")
            return out + press, "the career is over"
        if "Complete Career" in names:
            add("Complete Career")
            return out + press, "the career's summary"
        if "To Home" in names:
            add("To Home")
            return out + press, "the career is complete"
        if "Auto-Select" in names and any("empty" in t.lower() for t in said):
            add("Auto-Select")
            return out + press, "a new career's legacy, not chosen yet"
        if "Borrow" in names:
            add("Borrow")
            return out + press, "a new career's deck, no friend's card yet"
        if "Start Career!" in names:
            add("Start Career!")
            return out + press, "a new career's deck, ready"
        if "View Results" in names:  # a race's lobby: the result is the same watched or not
            add("View Results")
            return out + press, "a race about to start"
        if "Next" in names:
            add("Next")
            return out + press, "a result screen"
        if "Career" in names:
            out.append(("runPlan", (("name", "new_career"),)))  # the setup as one plan (runPlan's description)
            add("Career")
            return out + press, "the home screen"
        if names & {*HUB, RACE_DAY}:
            self.hub_visits += 1
            self.skills_turns = 0
            values: dict[str, Any] = v["values"] if isinstance(v.get("values"), dict) else {}
            goal = _goal(" | ".join([texts, *(f"{k} | {val}" for k, val in values.items())]))
            seen = f"the career hub, energy {_pct(energy)}" + (f", goal: {goal.text}" if goal.text else "")
            return self._hub(names, texts, energy, v.get("mood"), goal) + press, seen
        if sum(n in names for n in STATS) >= 3:
            first = self._hub_first(v, texts, energy)  # opened from the hub: what the hub would have chosen
            return first + self._training(names, energy, texts) + [("back", ())], (
                f"training choice, energy {_pct(energy)}" + (f", the hub's choice first: {_describe(first[0])}"
                                                             if first else ""))
        self._target = self._raised = None  # off the training screen: the next visit chooses afresh
        if ("Learn" in names and "Cancel" in names) or "Reset" in names:
            self.skills_turns += 1
            return self._skills(v, names), "the skill list"
        menu = v.get("menu") or {}
        if "Home" in names and menu.get("selected") not in (None, "Home"):
            add("Home")
            return out + press, f"the {menu.get('selected')} tab, not Home"
        if "Race" in names and "Back" in names:
            add("Race")
            return out + press, "the race list"
        return ([("back", ())] if "Back" in names else []) + press + [("advanceDialogue", ())], "an unknown screen"

    def _night(self, names: set[str], said: list[str], add: Callable[[str], None]) -> str:
        """What a night brings (the app's dialogs, its title screen, the phone's launcher): the presses a sensible
        model makes there, in `add` order, and what it saw; "" when none of them is on screen."""
        lowered = [t.lower() for t in said]
        shown = names | set(said)

        def offer(name: str) -> None:  # a button, or a read text (Android's dialog has no plates)
            if name in names:
                add(name)
            elif name in said:
                names.add(name)
                add(name)

        if "Session Error" in shown:
            offer("Title Screen")
            return "a session error: logged in elsewhere"
        if any("isn't responding" in t or "not responding" in t for t in lowered):
            offer("Wait")
            offer("Close app")
            return "Android says the game is not responding"
        if "Connection Error" in shown:
            offer("Retry")
            offer("Title Screen")
            return "a connection error"
        if "Resume" in names:
            add("Resume")
            return "a career in progress can be continued"
        if "Download" in names:
            add("Download")
            return "the game asks for a data update"
        if "Recover TP" in names or "Use" in names:
            offer("Use")
            add("Recover TP")
            offer("Cancel")
            return "too little TP to start a career"
        if guarded := [n for n in GUARDED if n in names]:
            key = json.dumps(sorted(shown))
            if self._careless[0] != key:
                self._careless = (key, self._careless_rng.random() < CARELESS)
            if self._careless[1]:  # the careless model's press: the agent's guard must refuse it
                add(guarded[0])
            add("Close")
            return "a shop popup"
        if "Tap to Start" in shown:
            offer("Tap to Start")
            return "the title screen"
        if APP_LABEL in shown and sum(n in shown for n in ("Chrome", "Settings", "Camera")) >= 2:
            offer(APP_LABEL)
            return "the phone's launcher: the game is not running"
        return ""

    def _hub(self, names: set[str], texts: str, energy: float | None, badge: Any = None,
             goal: GoalRead | None = None, on_the_hub: bool = True) -> list[Action]:
        """The hub's rule. `on_the_hub` False: decided on the training screen the coordinator opened from the hub
        (its survey names the hub's buttons): no audit of the hub's rest-or-train call (the bar read is the training
        screen's) and no periodic visit (the skill list, the race list, the shop), which hang on the visits counted
        rather than on the request."""
        # a goal's race is due: nothing else ends the turn (its tile read as "Race Day", or run together "RaceDay")
        order: list[str] = [next((n for n in names if re.sub(r"\W", "", n).lower() == "raceday"), RACE_DAY)]
        mood = _mood(badge, texts)
        if "condition" in texts.lower():
            order.append("Infirmary")
        rest = energy is not None and energy < REST_BELOW
        if self.on_rest_or_train is not None and {"Rest", "Training"} <= names and on_the_hub:
            self.on_rest_or_train(energy, rest)
        if rest:
            order.append("Rest")
        if mood in ("bad", "awful"):
            order.append("Recreation")
        if on_the_hub and rest and "Shop" in names and self.hub_visits - self._shopped >= SHOP_EVERY:
            self._shopped, self._bought = self.hub_visits, False
            order.insert(1, "Shop")  # tired: an item for coins before a rest (a turn kept)
        if on_the_hub and self.hub_visits % 9 == 0 and (energy is None or energy >= 0.6):
            order.append("Skills")
        if on_the_hub and self.hub_visits % 5 == 0 and (energy is None or energy >= 0.6):
            order.append("Races")
        if goal is not None and goal.fans_short and (energy is None or energy >= REST_BELOW or goal.turns_left == 0):
            order.insert(1, "Races")  # fans to earn before the goal's turn: race for them
        order += ["Training", "Rest", "Recreation"]
        out: list[Action] = []
        for n in order:
            if n == "Races" and (walk := self._goto(RACE_LIST)):
                out.append(walk)  # the way to the race list, walked by the map (one press today)
            if n == order[0] and n in names:
                out.append(("runPlan", (("name", "race_day"),)))  # the goal's race, its confirm and results as a plan
            if n in names:
                out.append(("pressButton", (("name", n),)))
        return out

    def _hub_first(self, v: dict[str, Any], texts: str, energy: float | None) -> list[Action]:
        """The coordinator opened the training screen from the hub (its survey says so, with the hub's buttons): the
        hub's rule decides first, and anything but Training is asked for as a plan (rest, recreation, infirmary) or
        a walk (the race list); [] when training it is, or when no hub is named."""
        if self._offered is None:
            return []
        values: dict[str, Any] = v["values"] if isinstance(v.get("values"), dict) else {}
        goal = _goal(" | ".join([texts, *(f"{k} | {val}" for k, val in values.items())]))
        for kind, args in self._hub(self._offered, texts, energy, v.get("mood"), goal, on_the_hub=False):
            name = str(dict(args).get("name", ""))
            if kind == GOTO or name == "Training":
                return [(kind, args)] if kind == GOTO else []
            if name in survey_read.PLANNED:
                return [("runPlan", (("name", survey_read.PLANNED[name]),))]
            if name != "Training" and name in self._offered:
                return [("back", ())]  # the goal's race, the race list, the shop: back to the hub to choose there
        return []

    def _training(self, names: set[str], energy: float | None, texts: str) -> list[Action]:
        """The real screen raises a tile on the first tap and trains on a tap of the raised one: choose a training
        once a visit and press it until it trains. Its "Failure N%" shows once it is raised: above FAIL_CAP the
        choice turns to Wit (cheap, and its risk is low)."""
        if self._target is None or self._survey:  # a survey's table is a decision afresh, from the request alone
            if energy is not None and energy < 0.5:
                self._target = "Wit"
            elif chosen := survey_read.best(self._survey, FAIL_CAP):
                self._target = chosen  # every tile in view: the most gain under the failure cap
            else:
                rot = ["Speed", "Power", "Stamina", "Speed", "Guts", "Wit"]
                self._target = rot[self.turns % len(rot)]
        fail = _FAILURE.search(texts)
        if self._raised == self._target != "Wit" and fail and int(fail.group(1)) > FAIL_CAP:
            self._target = "Wit"
        order = [self._target, "Wit", "Speed", "Stamina"]
        out = [("pressButton", (("name", n),)) for n in dict.fromkeys(order) if n in names]
        if out:
            self._raised = str(dict(out[0][1])["name"])
        return out

    def _skills(self, v: dict[str, Any], names: set[str]) -> list[Action]:
        """The Learn list: mark the first skill its points reach ("+", read as a plate or an icon), then Confirm
        and its "Learn"; back to the hub after a few turns here."""
        out: list[Action] = []
        plus = sorted(n for n in names if _is_plus(n))
        home = [walk] if (walk := self._goto(CAREER_HUB)) else []  # back to the hub by the map, else by hand
        if self.skills_turns > 6:
            return [*home, ("back", ()), ("pressButton", (("name", "Back"),))]
        if "Learn" in names and "Cancel" in names:
            return [("pressButton", (("name", "Learn"),)), ("pressButton", (("name", "Cancel"),))]
        if plus and self.skills_turns <= 2:
            out.append(("pressButton", (("name", plus[0]),)))
        if "Confirm" in names:
            out.append(("pressButton", (("name", "Confirm"),)))
        if (v.get("scroll") or {}).get("down") and not plus:
            out.append(("scrollDown", ()))
        return [*out, *home, ("back", ())]

    def _goto(self, places: tuple[str, ...]) -> Action | None:
        """goTo the first of `places` the map hint names as a way out of here, when the request offers goTo and its
        last walk there did not stop on a surprise within GOTO_PAUSE turns; None otherwise (the player goes by
        hand). The hint's label is passed as it is (with the id it carries when two screens share a name)."""
        if not self._goto_key:
            return None
        for place in places:
            paused = self._goto_paused.get(place)
            if paused is not None and self.turns - paused < GOTO_PAUSE:
                continue
            if (label := self._places.get(place.lower())) is not None:
                return GOTO, ((self._goto_key, label),)
        return None

    def _memory_call(
        self, request: dict[str, Any], tools: set[str], vision: dict[str, Any], why: str
    ) -> dict[str, Any] | None:
        if (self.turns - 1) % self.memory_every != 0:
            return None
        # As a model would know: the memory snapshot in system, or its own earlier call or a note in the conversation.
        exists = NOTES_FILE in json.dumps(request.get("system") or "") or NOTES_FILE in json.dumps(
            request.get("messages") or []
        )
        name = "writeMemoryFile" if exists else "createMemoryFile"
        if name not in tools:
            return None
        top = ", ".join(f"{k} x{n}" for k, n in self.presses.most_common(4)) or "nothing yet"
        note = (
            f"# Sim notes\n- turn {self.turns}: {why}\n- most used: {top}\n"
            "- rest below 40% energy; train otherwise; OK confirms dialogs\n"
        )
        return {
            "type": "tool_use",
            "id": new_tool_id(self.rng),
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


class GoalRead(BaseModel):
    """The current goal as the hub shows it (read from the texts alone)."""

    text: str = ""
    turns_left: int | None = None
    achieved: bool = False
    fans_needed: int = 0
    fans: int | None = None

    @property
    def fans_short(self) -> bool:
        """A fan goal not achieved with FANS_AHEAD turns or fewer left."""
        return (self.fans_needed > 0 and not self.achieved and self.turns_left is not None
                and self.turns_left <= FANS_AHEAD and (self.fans is None or self.fans < self.fans_needed))


def _goal(texts: str) -> GoalRead:
    """The goal on the hub: its text ("Earn 3000 fans"), "N turn(s) left", "Goal Achieved!", the fans read."""
    parts = [t.strip() for t in texts.split("|")]
    text = next((t for t in parts if re.match(r"(run in|place|earn)\b", t, re.IGNORECASE)), "")
    left = _TURNS_LEFT.search(texts)
    need = _GOAL_FANS.search(text)
    fans = _FANS.search(texts)
    return GoalRead(text=text, turns_left=int(left.group(1)) if left else None,
                achieved="goal achieved" in texts.lower(),
                fans_needed=int(need.group(1).replace(",", "")) if need else 0,
                fans=int(fans.group(1).replace(",", "")) if fans else None)


def _map_places(texts: list[str]) -> dict[str, str]:
    """The screens the current turn's map hint (`<map>screen: Career; ways out: Races -> Races, ...; goTo: Skill
    List</map>`) names as ways out or walks: lowercased name -> the label as written (`Event [3fa2]` where two
    screens share a name); {} when the turn has no hint (map disabled)."""
    places: dict[str, str] = {}
    for t in texts:
        for hint in _MAP_HINT.finditer(t):
            ways, _, far = hint.group(1).partition("ways out:")[2].partition("; goTo:")
            for label in [*_WAY_TO.findall(ways), *(f.strip() for f in far.split(",") if f.strip())]:
                places.setdefault(label.split(" [", 1)[0].strip().lower(), label.strip())
    return places


def _map_here(texts: list[str]) -> str:
    """The screen the current turn's map hint names (`<map>screen: dialogue (choices); ...`), or ""."""
    for t in texts:
        for hint in _MAP_HINT.finditer(t):
            return hint.group(1).partition("screen:")[2].partition(";")[0].strip()
    return ""


def _goto_key(request: dict[str, Any]) -> str:
    """goTo's argument (the first required property of its input schema), or "" when the tool is not offered."""
    for tool in request.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") == GOTO:
            schema = tool.get("input_schema") or {}
            required = schema.get("required") or list(schema.get("properties") or {})
            return str(required[0]) if required else ""
    return ""


def _energy(v: dict[str, Any], texts: str) -> float | None:
    """Energy as a share of full: the reading's Energy gauge (a bar's fill), else a printed "62/100"."""
    gauges = v.get("gauges")
    fill = next((f for k, f in gauges.items() if k.split("#")[0].lower() == "energy"), None) if isinstance(
        gauges, dict) else None
    if isinstance(fill, int | float) and not isinstance(fill, bool):
        return max(0.0, min(1.0, float(fill)))
    values = v.get("values")
    if isinstance(values, dict):  # a captioned value ("Energy": "62/100") is not repeated among the texts
        texts = " | ".join([texts, *(f"{k} {val}" for k, val in values.items())])
    if m := _ENERGY.search(texts):
        return int(m.group(1)) / max(1, int(m.group(2)))
    if m := _FRACTION.search(texts):
        return int(m.group(1)) / 100
    return None


def _mood(badge: Any, texts: str) -> str:
    """The mood word: the reading's mood badge, else a "Mood: Good" line; normal when neither is read."""
    if isinstance(badge, str) and badge.lower() in _MOODS:
        return badge.lower()
    return m.group(1).lower() if (m := _MOOD.search(texts)) else "normal"


def _pct(energy: float | None) -> str:
    return "unknown" if energy is None else f"{round(energy * 100)}%"


def _is_plus(name: str) -> bool:
    """A skill row's "+" stepper, as a reading names it ("+", "+#2", or an icon read as "Plus"), or the plain
    style's "Learn" plate."""
    return name.split("#")[0].strip().lower() in ("+", "plus", "learn")


def _is_choice(name: str) -> bool:
    """Event choice bars are long sentences; ordinary buttons are a word or two."""
    return len(name) >= 18 and len(name.split()) >= 3


def _choices(v: dict[str, Any], as_text: bool = False) -> list[str]:
    """An event's choice bars among the reading's enabled buttons; else, on a story page the map names an event's
    choices (`as_text`), the sentences read as text (the choices a reader did not frame as buttons)."""
    bars = [str(b["name"]) for b in v.get("buttons") or [] if isinstance(b, dict) and b.get("name")
            and "disabled" not in str(b.get("meta") or "").lower() and _is_choice(str(b["name"]))]
    if bars or not as_text or (v.get("cinematic") or "none") != "dialogue":
        return bars
    return [str(t) for t in v.get("texts") or [] if _is_choice(str(t))]


def _first_choice(choices: list[str], energy: float) -> str:
    """The choice ranked first at `energy` (share of full): the event rule the policy plays by."""
    return sorted(choices, key=lambda c: -_choice_score(c, energy))[0]


def _choice_score(text: str, energy: float | None) -> float:
    t = text.lower()
    score = 0.0
    if energy is not None and energy < 0.5 and re.search(r"rest|health|bed|off|easy|light", t):
        score += 2
    if re.search(r"train|run|race|win|strength|corner", t):
        score += 1
    return score


def _clean_vision(raw: Any) -> dict[str, Any] | None:
    """The `<vision>` reading in the shape the policy reads, whatever JSON arrived (a model may be sent
    anything): buttons as objects with a text name, texts as strings, menu and scroll as objects."""
    if not isinstance(raw, dict):
        return None

    def listed(value: Any) -> list[Any]:
        return value if isinstance(value, list) else []

    def obj(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    buttons = [{**b, "name": str(b["name"]), "meta": "" if b.get("meta") is None else str(b.get("meta"))}
               for b in listed(raw.get("buttons")) if isinstance(b, dict) and b.get("name")]
    cinematic = raw.get("cinematic")
    return {**raw, "buttons": buttons, "texts": [str(t) for t in listed(raw.get("texts"))],
            "cinematic": cinematic if isinstance(cinematic, str) else None, "menu": obj(raw.get("menu")),
            "scroll": obj(raw.get("scroll"))}


def _args_key(args: Any) -> tuple[tuple[str, Any], ...]:
    """A tool call's input as a hashable key, whatever the history holds: malformed input (a list where a string
    goes, an input that is not an object) must not break the policy on every later request."""
    if not isinstance(args, dict):
        return (("", json.dumps(args, sort_keys=True, default=str)),)
    return tuple(sorted((str(k), v if isinstance(v, str | int | float | bool) or v is None
                         else json.dumps(v, sort_keys=True, default=str)) for k, v in args.items()))


def _describe(action: Action | None) -> str:
    if action is None:
        return "none"
    name, args = action
    return f"{name}({', '.join(repr(v) for _, v in args)})"
