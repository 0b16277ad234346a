"""The scripted policy, through the real SDK: it plays the simulated game, writes memory, summarises, and
answers VLM-shaped requests from OCR ids."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from typing import Any

import pytest
import yaml
from PIL import Image, ImageDraw

from lluma_agent.tools.registry import INPUT_TOOLS, tool_definitions
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy
from lluma_sim.api.server import ApiServer
from lluma_sim.game import SimGame
from lluma_sim.game.truth import GroundTruth

MODEL = "claude-haiku-4-5"
TOOLS = tool_definitions()


def vision_of(t: GroundTruth) -> dict[str, Any]:
    """The agent's compact <vision> form, built from the simulator's ground truth (no OCR in these tests)."""
    seen: Counter[str] = Counter()
    buttons = []
    for e in t.elements:
        if e.kind not in ("button", "tab", "choice", "icon"):
            continue
        seen[e.name] += 1
        name = e.name if seen[e.name] == 1 else f"{e.name}#{seen[e.name]}"
        b: dict[str, Any] = {"name": name}
        if not e.enabled:
            b["meta"] = "disabled"
        buttons.append(b)
    v: dict[str, Any] = {"buttons": buttons, "texts": [e.name for e in t.elements if e.kind == "text"]}
    if t.selected_tab:
        v["menu"] = {"usable": bool(t.menu_usable), "selected": t.selected_tab}
    if t.scrollbar:
        v["scroll"] = {"up": t.scrollbar.up, "down": t.scrollbar.down}
    if t.cinematic != "none":
        v["cinematic"] = t.cinematic
    return v


def element_box(t: GroundTruth, name: str):
    base, _, n = name.partition("#")
    hits = [e for e in t.elements if e.name == base and e.kind != "text"]
    k = int(n) - 1 if n else 0
    return hits[k].box if k < len(hits) else None


def execute(game: SimGame, t: GroundTruth, name: str, args: dict[str, Any]) -> str:
    if name == "pressButton":
        box = element_box(t, args.get("name", ""))
        if box is None:
            return f"no button named {args.get('name')!r}"
        game.tap(*box.center)
        return f"tapped {args.get('name')!r} at {box.center}"
    if name == "advanceDialogue":
        game.tap(game.width * 0.5, game.height * 0.75)
        return "tapped the dialogue box"
    if name == "back":
        game.keyevent("KEYCODE_BACK")
        return "sent back"
    if name == "confirm":
        box = element_box(t, "OK") or element_box(t, "Confirm")
        if box is not None:
            game.tap(*box.center)
        return "tapped OK"
    if name in ("scrollDown", "scrollUp"):
        dy = -500 if name == "scrollDown" else 500
        game.swipe(game.width * 0.5, game.height * 0.5, game.width * 0.5, game.height * 0.5 + dy)
        return "swiped"
    return "unknown tool"


def settle(game: SimGame) -> GroundTruth:
    for _ in range(20):  # wait out loading screens and cutscenes, as the coordinator does
        game.capture()
        t = game.truth()
        if t.cinematic not in ("loading", "cutscene"):
            return t
    return t


def test_policy_plays_the_simulated_game_through_the_sdk():
    game = SimGame(seed=3, max_turns=8)
    with ApiServer() as api:
        client = api.client()
        t = settle(game)
        prev: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        inputs_per_reply = []
        memory_calls = 0
        for _ in range(70):
            screen = {"type": "text", "text": f"<vision>{json.dumps(vision_of(t))}</vision>"}
            user = {"role": "user", "content": [*results, screen]}
            msg = client.messages.create(
                model=MODEL, max_tokens=400, tools=TOOLS, system="Play the game.", messages=prev + [user]
            )
            blocks = [b.model_dump(exclude_none=True) for b in msg.content]
            uses = [b for b in blocks if b["type"] == "tool_use"]
            inputs = [b for b in uses if b["name"] in INPUT_TOOLS]
            inputs_per_reply.append(len(inputs))
            memory_calls += len(uses) - len(inputs)
            assert any(b["type"] == "text" and b["text"] for b in blocks)
            before = game.state.version
            results = []
            for b in uses:
                if b["name"] in INPUT_TOOLS:
                    what = execute(game, t, b["name"], b["input"])
                    t = settle(game)
                    effect = "screen changed" if game.state.version != before else "screen unchanged"
                    results.append({"type": "tool_result", "tool_use_id": b["id"], "content": f"{what}; {effect}"})
                else:
                    results.append({"type": "tool_result", "tool_use_id": b["id"], "content": "saved"})
            prev = [{"role": "user", "content": [screen]}, {"role": "assistant", "content": blocks}]
            if game.finished:
                break
        assert all(n == 1 for n in inputs_per_reply), inputs_per_reply
        assert memory_calls >= 2
        assert game.career is not None and game.turn >= 6, (game.turn, game.screen)
        assert all(e.status == 200 for e in api.log)


def _ask(api: ApiServer, vision: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    msg = api.client().messages.create(
        model=MODEL,
        max_tokens=400,
        tools=TOOLS,
        messages=[{"role": "user", "content": f"<vision>{json.dumps(vision)}</vision>"}],
        **kw,
    )
    return [b.model_dump(exclude_none=True) for b in msg.content]


def _action(blocks: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    (use,) = [b for b in blocks if b["type"] == "tool_use" and b["name"] in INPUT_TOOLS]
    return use["name"], use["input"]


HUB = ["Rest", "Training", "Skills", "Infirmary", "Recreation", "Races"]


@pytest.mark.parametrize(
    ("vision", "expected"),
    [
        ({"buttons": [{"name": n} for n in HUB], "texts": ["Energy", "85/100"]}, ("pressButton", {"name": "Training"})),
        ({"buttons": [{"name": n} for n in HUB], "texts": ["Energy", "20/100"]}, ("pressButton", {"name": "Rest"})),
        (
            {"buttons": [{"name": "Cancel"}, {"name": "OK"}], "texts": ["Rest for this turn?"]},
            ("pressButton", {"name": "OK"}),
        ),
        ({"buttons": [{"name": "Next"}, {"name": "Skip"}], "cinematic": "dialogue"}, ("advanceDialogue", {})),
        (
            {"buttons": [{"name": "Career"}, {"name": "Home"}], "menu": {"usable": True, "selected": "Home"}},
            ("pressButton", {"name": "Career"}),
        ),
        (
            {
                "buttons": [{"name": "Career"}, {"name": "Home"}, {"name": "Race"}],
                "menu": {"usable": True, "selected": "Story"},
            },
            ("pressButton", {"name": "Career"}),
        ),
        (
            {"buttons": [{"name": "Home"}, {"name": "Race"}], "menu": {"usable": True, "selected": "Story"}},
            ("pressButton", {"name": "Home"}),
        ),
        (
            {"buttons": [{"name": "Junior Stakes"}, {"name": "Race"}, {"name": "Back"}]},
            ("pressButton", {"name": "Race"}),
        ),
        ({"buttons": [{"name": "Next"}], "texts": ["Race Result", "1st"]}, ("pressButton", {"name": "Next"})),
        ({"buttons": [{"name": "Finish"}], "texts": ["Career Complete"]}, ("pressButton", {"name": "Finish"})),
        (
            {
                "buttons": [
                    {"name": "Plus"},  # a "+" stepper as a reading names an icon
                    {"name": "Plus#2"},
                    {"name": "Confirm", "meta": "disabled"},
                    {"name": "Reset"},
                    {"name": "Back"},
                ],
                "scroll": {"up": False, "down": True},
            },
            ("pressButton", {"name": "Plus"}),
        ),
        (
            {"buttons": [{"name": "Cancel"}, {"name": "Learn"}], "texts": ["Learn", "Learn 1 skill?"]},
            ("pressButton", {"name": "Learn"}),
        ),
        (
            {"buttons": [{"name": "Cancel"}, {"name": "Exchange"}], "texts": ["Exchange 35 coins for Vita 20?"]},
            ("pressButton", {"name": "Exchange"}),
        ),
        (
            {
                "buttons": [
                    {"name": "-"},
                    {"name": "+", "meta": "disabled"},
                    {"name": "Confirm"},
                    {"name": "Reset"},
                    {"name": "Back"},
                ]
            },
            ("pressButton", {"name": "Confirm"}),
        ),
    ],
)
def test_policy_picks_sensible_buttons(vision, expected):
    with ApiServer() as api:
        assert _action(_ask(api, vision)) == expected


@pytest.mark.parametrize(
    ("gauge", "digits", "mood", "expected"),
    [
        (0.3, "90/100", None, "Rest"),  # the bar's fill, not printed digits (the real game prints none)
        (0.8, "20/100", None, "Training"),
        (0.39, None, None, "Rest"),
        (0.41, None, None, "Training"),
        (0.9, None, "BAD", "Recreation"),  # the mood badge word
        (0.9, None, "GREAT", "Training"),
    ],
)
def test_policy_rests_or_trains_on_the_energy_gauge_and_reads_the_mood_badge(gauge, digits, mood, expected):
    vision = {"buttons": [{"name": n} for n in HUB], "texts": ["Energy"] + ([digits] if digits else []),
              "gauges": {"Energy": gauge}, **({"mood": mood} if mood else {})}
    calls: list[tuple[float | None, bool]] = []
    with ApiServer(policy=ScriptedPolicy(on_rest_or_train=lambda e, r: calls.append((e, r)))) as api:
        assert _action(_ask(api, vision)) == ("pressButton", {"name": expected})
    assert calls == [(gauge, gauge < 0.4)]  # each call is told, with the energy it was made on


def test_policy_picks_an_event_choice_and_training_stat():
    with ApiServer() as api:
        choices = ["Tell her about breathing through the pain.", "Show her how to lean into the corner."]
        name, args = _action(_ask(api, {"buttons": [{"name": c} for c in choices] + [{"name": "Quick"}]}))
        assert name == "pressButton" and args["name"] in choices
        stats = ["Speed", "Stamina", "Power", "Guts", "Wit", "Back"]
        name, args = _action(_ask(api, {"buttons": [{"name": s} for s in stats], "texts": ["Energy", "90/100"]}))
        assert name == "pressButton" and args["name"] in stats[:5]


def test_policy_does_not_repeat_a_press_that_changed_nothing():
    vision = {"buttons": [{"name": n} for n in HUB], "texts": ["Energy", "85/100"]}
    text = f"<vision>{json.dumps(vision)}</vision>"
    with ApiServer() as api:
        prev = [
            {"role": "user", "content": text},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Train."},
                    {"type": "tool_use", "id": "toolu_1", "name": "pressButton", "input": {"name": "Training"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "tapped 'Training' at (540,1300); screen unchanged",
                    },
                    {"type": "text", "text": text},
                ],
            },
        ]
        msg = api.client().messages.create(model=MODEL, max_tokens=300, tools=TOOLS, messages=prev)
        name, args = _action([b.model_dump() for b in msg.content])
        assert (name, args) != ("pressButton", {"name": "Training"})
        assert "changed nothing" in msg.content[0].text


def _answered(reply: list[dict[str, Any]], outcome: str = "screen changed") -> list[dict[str, Any]]:
    """The results of a reply's calls, as the next turn carries them."""
    return [{"type": "tool_result", "tool_use_id": b["id"], "content": f"done; {outcome}"} for b in reply
            if b["type"] == "tool_use"]


def test_policy_writes_memory_on_the_first_turn_and_then_periodically():
    """Every `memory_every` turns, counted from its last write the history shows (it keeps no counter)."""
    vision = {"buttons": [{"name": n} for n in HUB], "texts": ["Energy", "85/100"]}
    screen = {"type": "text", "text": f"<vision>{json.dumps(vision)}</vision>"}
    req: dict[str, Any] = {"model": MODEL, "max_tokens": 300, "tools": TOOLS, "messages": []}
    names = []
    reply: list[dict[str, Any]] = []
    for _ in range(10):
        req["messages"] += [{"role": "user", "content": [*_answered(reply), screen]}]
        reply = ScriptedPolicy(memory_every=3).respond(req).content
        req["messages"] += [{"role": "assistant", "content": reply}]
        names.append([b["name"] for b in reply if b["type"] == "tool_use"])
    assert names[0] == ["createMemoryFile", "pressButton"]
    assert [len(n) for n in names] == [2, 1, 1, 2, 1, 1, 2, 1, 1, 2]
    assert names[3][0] == names[9][0] == "writeMemoryFile"  # its own earlier call: the file exists
    # a new conversation, the file known from the memory snapshot in system: written, not created
    fresh = {**req, "system": '<memory>\n<file name="sim_notes.md">\n...\n</file>\n</memory>',
             "messages": [{"role": "user", "content": [screen]}]}
    assert [b["name"] for b in ScriptedPolicy(memory_every=3).respond(fresh).content
            if b["type"] == "tool_use"][0] == "writeMemoryFile"


def test_summary_request_gets_plain_text():
    with ApiServer() as api:
        messages = [
            {"role": "user", "content": "<vision>{}</vision>"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_a", "name": "pressButton", "input": {"name": "Rest"}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "tapped 'Rest'; screen changed"},
                    {"type": "text", "text": "<summarize>\nFold the turns above into a short summary."},
                ],
            },
        ]
        msg = api.client().messages.create(model=MODEL, max_tokens=300, tools=TOOLS, messages=messages)
        assert msg.stop_reason == "end_turn"
        assert [b.type for b in msg.content] == ["text"]
        assert "pressButton(Rest)" in msg.content[0].text


def _plated(plates: list[tuple[int, int, int, int]]) -> str:
    """A 1080x1920 screenshot with a bordered plate (a button) at each box."""
    img = Image.new("RGB", (1080, 1920), (200, 220, 240))
    draw = ImageDraw.Draw(img)
    for box in plates:
        draw.rounded_rectangle(box, 20, fill=(250, 250, 250), outline=(90, 150, 40), width=4)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_vlm_shaped_request_gets_buttons_grounded_on_ocr_ids():
    ocr = "\n".join(
        [
            "0\tCareer\t[40,40,300,90]",
            "1\tRest\t[40,1300,300,1400]",
            "2\tTraining\t[360,1300,700,1400]",
            "3\t72/100\t[700,130,900,170]",
            "4\tOK\t[600,1800,900,1880]",
        ]
    )
    schema = {"type": "object", "properties": {"buttons": {"type": "array"}, "icons": {"type": "array"}}}
    plates = [(20, 20, 320, 110), (20, 1270, 320, 1430), (340, 1270, 720, 1430), (580, 1770, 920, 1910)]
    with ApiServer() as api:
        msg = api.client().messages.create(
            model=MODEL,
            max_tokens=1000,
            output_config={"format": {"type": "json_schema", "schema": schema}},
            messages=[
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": _plated(plates)},
                        },
                        {"type": "text", "text": f"Name the buttons.\n<ocr>\n{ocr}\n</ocr>"},
                    ],
                }
            ],
        )
    out = json.loads(msg.content[0].text)
    assert out["icons"] == []
    by_name = {b["name"]: b for b in out["buttons"]}
    # buttons sit on plates; "72/100" is a reading on open ground, not a button
    assert set(by_name) == {"Career", "Rest", "Training", "OK"}
    assert by_name["Rest"]["ocr_ids"] == [1] and by_name["Career"]["region"] == "top"
    assert by_name["OK"]["region"] == "bottom" and by_name["Training"]["meta"] == ""


def test_policy_is_pluggable():
    class Fixed:
        def respond(self, request):
            return PolicyReply(content=[{"type": "text", "text": "hello"}], decision="fixed")

    with ApiServer(policy=Fixed()) as api:
        msg = api.client().messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        assert msg.content[0].text == "hello" and msg.stop_reason == "end_turn"
        assert api.log[-1].policy == "fixed"


def test_streaming_gives_the_same_reply_and_usage():
    vision = {"buttons": [{"name": n} for n in HUB], "texts": ["Energy", "85/100"]}
    kw = dict(
        model=MODEL,
        max_tokens=3000,
        tools=TOOLS,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[{"role": "user", "content": f"<vision>{json.dumps(vision)}</vision>"}],
    )
    with ApiServer(policy=ScriptedPolicy(seed=5)) as api:
        with api.client().messages.stream(**kw) as stream:
            streamed = stream.get_final_message()
    with ApiServer(policy=ScriptedPolicy(seed=5)) as api:
        plain = api.client().messages.create(**kw)
    assert (
        [b.type for b in streamed.content]
        == [b.type for b in plain.content]
        == ["thinking", "text", "tool_use", "tool_use"]
    )
    assert streamed.content[0].signature and streamed.content[3].input == {"name": "Training"}
    assert streamed.usage.output_tokens == plain.usage.output_tokens
    assert streamed.stop_reason == "tool_use"


# ---- what a night brings: the readings as the offline OCR reads the simulator's frames ------------------------

def _b(*names: str, **metas: str) -> list[dict[str, Any]]:
    return [{"name": n, **({"meta": metas[n]} if n in metas else {})} for n in names]


@pytest.mark.parametrize(
    ("vision", "pressed"),
    [
        # Android's dialog: its icons read as buttons, their words beside them; Wait is pressed by its words
        ({"buttons": _b("Close", "Info", Close="Close app", Info="Wait"), "texts": ["Umamusume isn't responding"]},
         "Wait"),
        ({"buttons": _b("Title Screen", "Retry"), "texts": ["Connection Error", "A communication error occurred."]},
         "Retry"),
        ({"buttons": _b("Title Screen"), "texts": ["Session Error", "You have logged in on another device."]},
         "Title Screen"),
        ({"buttons": _b("Cancel", "Resume"), "texts": ["Continue Career", "A career is in progress."]}, "Resume"),
        ({"buttons": _b("Cancel", "Download"), "texts": ["Data Update", "New data is available."]}, "Download"),
        ({"buttons": _b("OK"), "texts": ["Date Changed", "The date has changed."]}, "OK"),
        ({"buttons": _b("Close"), "texts": ["Tutorial", "Tap a stat to train it."]}, "Close"),
        ({"buttons": _b("LLuMa Derby"), "texts": ["Pretty Derby", "Tap to Start", "Ver. 1.20.3"]}, "Tap to Start"),
        ({"buttons": _b("Camera", "Settings", "Photos", "Clock"), "texts": ["12:00", "Chrome", "Umamusume", "Phone"]},
         "Umamusume"),
        ({"buttons": _b("Auto-Select", "Back", "Next", Next="disabled"),
          "texts": ["Select Legacy", "Legacy 1: Empty", "Legacy 2: Empty"]}, "Auto-Select"),
        ({"buttons": _b("Auto-Select", "Back", "Next"), "texts": ["Select Legacy", "Legacy 1: Maruzensky"]}, "Next"),
        ({"buttons": _b("Borrow", "Start Career!", "Back", **{"Start Career!": "disabled"}),
          "texts": ["Support Deck", "Friend: Empty"]}, "Borrow"),
        ({"buttons": _b("Start Career!", "Back"), "texts": ["Support Deck", "Friend: Twin Turbo"]}, "Start Career!"),
        ({"buttons": _b("Cancel", "Recover TP"), "texts": ["Confirm", "Not enough TP to start a career."]},
         "Recover TP"),
        ({"buttons": _b("Complete Career"), "texts": ["URA Finale", "Speed"]}, "Complete Career"),
        ({"buttons": _b("Cancel", "Finish"), "texts": ["Confirm", "Complete this career?"]}, "Finish"),
        ({"buttons": _b("To Home"), "texts": ["Career Complete", "Score 412"]}, "To Home"),
    ],
)
def test_policy_plays_the_night_and_the_careers_screens(vision: dict[str, Any], pressed: str) -> None:
    with ApiServer() as api:
        assert _action(_ask(api, vision)) == ("pressButton", {"name": pressed})


def test_policy_sometimes_presses_a_guarded_button_and_moves_on_when_refused() -> None:
    sale = {"buttons": _b("Close", "Purchase Carats"), "texts": ["Daily Sale", "Today only: 1,500 Carats pack."]}
    screen = {"role": "user", "content": f"<vision>{json.dumps(sale)}</vision>"}
    first: dict[int, str] = {}
    for seed in range(40):
        reply = ScriptedPolicy(seed=seed).respond({"tools": TOOLS, "messages": [screen]})
        first[seed] = next(b["input"]["name"] for b in reply.content if b["type"] == "tool_use"
                           and b["name"] in INPUT_TOOLS)
    careless = [s for s, name in first.items() if name == "Purchase Carats"]
    assert set(first.values()) == {"Close", "Purchase Carats"} and 4 <= len(careless) <= 20  # now and then
    policy = ScriptedPolicy(seed=careless[0])
    reply = policy.respond({"tools": TOOLS, "messages": [screen]})
    use = next(b for b in reply.content if b["type"] == "tool_use" and b["name"] in INPUT_TOOLS)
    assert use["input"]["name"] == "Purchase Carats"
    refused = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": use["id"], "is_error": True,
         "content": "refused: 'Purchase Carats' is never pressed while unattended (guard.never_press)"},
        {"type": "text", "text": f"<vision>{json.dumps(sale)}</vision>"}]}
    again = policy.respond({"tools": TOOLS, "messages": [screen, {"role": "assistant", "content": reply.content},
                                                         refused]})
    assert next(b["input"]["name"] for b in again.content if b["type"] == "tool_use"
                and b["name"] in INPUT_TOOLS) == "Close"


# ---- the career's goals, learned from the screen alone (issue 37) -----------------------------------------------

GOAL_HUB = ["Career", "Energy", "Classic Year Late Nov", "GOAL", "2 turn(s) left", "Earn 3000 fans", "Skill Pts",
            "120", "Fans", "1,950"]


@pytest.mark.parametrize(
    ("vision", "pressed"),
    [
        # Race Day: the goal's race is the only way on; the turn's other tiles are greyed
        ({"buttons": _b("Rest", "Training", "Skills", "Race Day", Rest="disabled", Training="disabled"),
          "texts": ["Energy", "90/100", "GOAL", "0 turn(s) left", "Place top 5 in Japanese Derby"]}, "Race Day"),
        # the same, its tile's words read run together (OCR on the hard hub), the greyed tiles not told apart
        ({"buttons": _b("Rest", "Training", "Skills", "RaceDay"), "texts": ["Energy", "O turn(s) left",
                                                                             "Run in Junior Make Debut"]}, "RaceDay"),
        # a fan goal two turns off with too few fans: race for them rather than train
        ({"buttons": _b(*HUB), "texts": GOAL_HUB, "gauges": {"Energy": 0.8}}, "Races"),
        # the same goal already achieved, or far off: train as usual
        ({"buttons": _b(*HUB), "texts": [*GOAL_HUB, "Goal Achieved!"], "gauges": {"Energy": 0.8}}, "Training"),
        ({"buttons": _b(*HUB), "texts": [t.replace("2 turn(s)", "9 turn(s)") for t in GOAL_HUB],
          "gauges": {"Energy": 0.8}}, "Training"),
        # the fans read as a captioned value, as the agent's reading pairs them, with enough of them
        ({"buttons": _b(*HUB), "texts": GOAL_HUB[:-2], "values": {"Fans": "3,400"}, "gauges": {"Energy": 0.8}},
         "Training"),
        # a goal race lost: an Alarm Clock runs it again rather than ending the career
        ({"buttons": _b("Cancel", "Try Again"), "texts": ["Try Again", "Use 1 Alarm Clock to try again?"]},
         "Try Again"),
        ({"buttons": _b("OK"), "texts": ["Goal Not Reached", "The career ends here."]}, "OK"),
        # tired, with a shop on the hub: an item for coins before a rest (issue 40: a spend the model chooses)
        ({"buttons": _b(*HUB, "Shop"), "texts": GOAL_HUB[:-2], "gauges": {"Energy": 0.2}}, "Shop"),
        ({"buttons": _b("Exchange", "Exchange#2", "Back"), "texts": ["Shop", "Vita 20", "Energy +20"],
          "values": {"Shop Coins": "60"}}, "Exchange"),
    ],
)
def test_policy_learns_the_goal_from_the_screen(vision: dict[str, Any], pressed: str) -> None:
    with ApiServer() as api:
        assert _action(_ask(api, vision)) == ("pressButton", {"name": pressed})


def _played(api: ApiServer, screens: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The player's input call on each of `screens` in one conversation, through the SDK: each reply's calls answered
    (the screen changed) ahead of the next screen."""
    messages: list[dict[str, Any]] = []
    reply: list[dict[str, Any]] = []
    actions = []
    for vision in screens:
        screen = {"type": "text", "text": f"<vision>{json.dumps(vision)}</vision>"}
        messages.append({"role": "user", "content": [*_answered(reply), screen]})
        msg = api.client().messages.create(model=MODEL, max_tokens=400, tools=TOOLS, messages=messages)
        reply = [b.model_dump(exclude_none=True) for b in msg.content]
        messages.append({"role": "assistant", "content": reply})
        actions.append(_action(reply))
    return actions


def test_policy_raises_a_training_then_trains_it_and_turns_to_wit_on_a_high_failure() -> None:
    stats = ["Speed", "Stamina", "Power", "Guts", "Wit", "Back"]
    screen = {"buttons": [{"name": s} for s in stats], "texts": ["Training", "Energy", "Failure 0%"],
              "gauges": {"Energy": 0.9}}
    with ApiServer(policy=ScriptedPolicy()) as api:
        first, second = _played(api, [screen, {**screen, "texts": ["Training", "Energy", "Failure 3%", "+12"]}])
        assert first == second and first[0] == "pressButton" and first[1]["name"] in stats[:5]  # raise, then train
    with ApiServer(policy=ScriptedPolicy(seed=1)) as api:
        picked, risky = (a[1]["name"] for a in _played(api, [screen, {**screen, "texts": ["Training", "Energy",
                                                                                            "Failure 31%"]}]))
        assert picked == "Speed" and risky == "Wit"  # the raised tile's failure read: too risky, Wit instead


def test_policy_keeps_its_answer_to_an_event_it_has_seen_the_outcome_of() -> None:
    """Told of event_choices.yaml and shown what the event's choices did, the stand-in writes its own rule there
    once (merged with the file as the request shows it), as a model would; never before it has seen an outcome."""
    easy, hard = "Take the afternoon off and rest.", "Show her how to lean into the corner."
    vision = {"buttons": [{"name": hard}, {"name": easy}]}
    seen = "<events>Corner Practice, what each choice did before (mean): 'x' 1x: Speed +5</events>"
    system = [{"type": "text", "text": "You play. Keep answers in event_choices.yaml."},
              {"type": "text", "text": '<memory>\n<file name="event_choices.yaml">\nOther Event: "A"\n</file>\n'
                                       "</memory>"}]

    def ask(text: str, sys: Any = system) -> list[dict[str, Any]]:
        req = {"model": MODEL, "max_tokens": 300, "tools": TOOLS, "system": sys,
               "messages": [{"role": "user", "content": f"<vision>{json.dumps(vision)}</vision>\n{text}"}]}
        return [b for b in ScriptedPolicy().respond(req).content if b["type"] == "tool_use"
                and (b["input"].get("name") == "event_choices.yaml" or b["name"] == "pressButton")]  # no sim notes

    uses = ask(seen)
    assert [u["name"] for u in uses] == ["writeMemoryFile", "pressButton"] and uses[1]["input"]["name"] == hard
    assert yaml.safe_load(uses[0]["input"]["content"]) == {
        "Other Event": "A", "Corner Practice": {"choose": hard, "energy_below": 50, "then": easy}}
    assert [u["name"] for u in ask("")] == ["pressButton"]  # no outcome seen yet
    assert [u["name"] for u in ask(seen, "You play.")] == ["pressButton"]  # not told of the file
    kept = system[:1] + [{"type": "text", "text": system[1]["text"].replace('"A"', '"A"\nCorner Practice: x')}]
    assert [u["name"] for u in ask(seen, kept)] == ["pressButton"]  # already kept
    # choices a reader left as text on the story page the map names an event's choices: the same, by their words
    vision = {"cinematic": "dialogue", "buttons": [{"name": "Skip"}],
              "texts": ["Event", "Corner Practice", hard, easy]}
    uses = ask(seen + "\n<map>screen: dialogue (choices); ways out: none known yet</map>")
    assert [u["name"] for u in uses] == ["writeMemoryFile", "pressButton"] and uses[1]["input"]["name"] == hard
    assert yaml.safe_load(uses[0]["input"]["content"])["Corner Practice"]["then"] == easy
