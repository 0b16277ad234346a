"""The stand-in player walks with goTo where a model would (to the race list, back to the career hub), only when the
request offers the tool and the current turn's map hint names the place; a walk that stopped on a surprise is not
asked for again at once; without goTo (map disabled) it plays as it always did."""

from __future__ import annotations

import json
from typing import Any

from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api.policy import GOTO_PAUSE, ScriptedPolicy

TOOLS = tool_definitions()
GOTO_TOOL = {"name": "goTo", "description": "Walk the shortest known path to a screen.",
             "input_schema": {"type": "object", "properties": {"screen": {"type": "string"}}, "required": ["screen"]}}
HUB = {"buttons": [{"name": n} for n in ("Rest", "Training", "Skills", "Infirmary", "Recreation", "Races")],
       "texts": ["Energy"], "gauges": {"Energy": 0.9}}
SKILLS = {"buttons": [{"name": "Owned", "meta": "disabled"}, {"name": "Reset"}, {"name": "Back"}],
          "texts": ["Skill List", "Skill Pts 120"]}
HUB_HINT = "<map>screen: Career; ways out: Training -> Training, Rest -> Rest, Races -> Races</map>"
SKILLS_HINT = "<map>screen: Skill List; ways out: back -> Career, 'Learn' -> Skill List</map>"


def turn(vision: dict[str, Any], hint: str = HUB_HINT, results: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    text = f"<vision>{json.dumps(vision)}</vision>" + (f"\n{hint}" if hint else "")
    return {"role": "user", "content": [*(results or []), {"type": "text", "text": text}]}


def action(reply_content: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    use = next(b for b in reply_content if b["type"] == "tool_use" and b["name"] not in
               ("createMemoryFile", "writeMemoryFile", "deleteMemoryFile"))
    return use["name"], use["input"]


def answered(messages: list[dict[str, Any]], outcome: str = "screen changed") -> list[dict[str, Any]]:
    """The results of the last reply's calls, as the next turn carries them."""
    calls = [b for b in messages[-1]["content"] if b["type"] == "tool_use"] if messages else []
    return [{"type": "tool_result", "tool_use_id": b["id"], "content": f"done; {outcome}"} for b in calls]


def played(*screens: dict[str, Any], hint: str = "") -> list[dict[str, Any]]:
    """A conversation the player answered screen by screen (no goTo offered; every call changed the screen), ending
    with its last reply: the history a later request carries."""
    messages: list[dict[str, Any]] = []
    for vision in screens:
        messages.append(turn(vision, hint, results=answered(messages)))
        reply = ScriptedPolicy(memory_every=1000).respond({"tools": TOOLS, "messages": messages})
        messages.append({"role": "assistant", "content": reply.content})
    return messages


def now(history: list[dict[str, Any]], vision: dict[str, Any], hint: str = HUB_HINT) -> list[dict[str, Any]]:
    """The messages of a request on `vision` after `history`."""
    return [*history, turn(vision, hint, results=answered(history))]


def races_due() -> list[dict[str, Any]]:
    """The history of a player whose next hub visit goes racing (every fifth, energy permitting): four hub visits."""
    return played(HUB, HUB, HUB, HUB)


def test_goes_to_the_race_list_with_goto_when_offered_and_known() -> None:
    reply = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL], "messages": now(races_due(), HUB)})
    assert action(reply.content) == ("goTo", {"screen": "Races"})
    early = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL],
                                                       "messages": now(played(HUB, HUB, HUB), HUB)})
    assert action(early.content) == ("pressButton", {"name": "Training"})  # the fourth visit trains


def test_presses_by_hand_without_goto_or_when_the_map_does_not_know_the_place() -> None:
    unknown = "<map>screen: Career; ways out: Training -> Training, Rest -> Rest</map>"  # Races not learnt yet
    offered_unknown = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL],
                                                                 "messages": now(races_due(), HUB, unknown)})
    assert action(offered_unknown.content) == ("pressButton", {"name": "Races"})
    not_offered = ScriptedPolicy(memory_every=1000).respond({"tools": TOOLS, "messages": now(races_due(), HUB)})
    assert action(not_offered.content) == ("pressButton", {"name": "Races"})  # map disabled: no tool


def test_without_goto_the_requests_and_replies_are_as_before() -> None:
    """Map disabled: the same seed and screens give the same replies as a player that never heard of goTo (tool ids
    aside: a request's own, as the API's are)."""
    a, b = ScriptedPolicy(memory_every=1000), ScriptedPolicy(memory_every=1000)
    plain, hinted = races_due(), races_due()
    for vision in (HUB, SKILLS, HUB):
        plain.append(turn(vision, hint="", results=answered(plain)))
        hinted.append(turn(vision, results=answered(hinted)))  # a hint, but no tool offered
        ra = a.respond({"tools": TOOLS, "messages": plain})
        rb = b.respond({"tools": TOOLS, "messages": hinted})
        assert [{k: v for k, v in c.items() if k != "id"} for c in ra.content] == [
            {k: v for k, v in c.items() if k != "id"} for c in rb.content]
        plain.append({"role": "assistant", "content": ra.content})
        hinted.append({"role": "assistant", "content": rb.content})
    assert [action(m["content"]) for m in plain[-5::2]] == [  # the fifth visit races, the sixth trains
        ("pressButton", {"name": "Races"}), ("back", {}), ("pressButton", {"name": "Training"})]


def on_the_list_a_while() -> list[dict[str, Any]]:
    """The history of a player that came from the hub and stayed on the skill list long enough to go back."""
    return played(HUB, *[SKILLS] * 6)


def test_leaves_the_skill_list_for_the_hub_with_goto() -> None:
    reply = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL],
                                                       "messages": now(on_the_list_a_while(), SKILLS, SKILLS_HINT)})
    assert action(reply.content) == ("goTo", {"screen": "Career"})


def test_names_a_screen_by_its_label_where_two_share_a_name() -> None:
    hint = "<map>screen: Career [4d92]; ways out: Races -> Races [4c67], Training -> Training</map>"
    reply = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL], "messages": now(races_due(), HUB,
                                                                                                     hint)})
    assert action(reply.content) == ("goTo", {"screen": "Races [4c67]"})


def test_a_goto_that_stopped_on_a_surprise_is_not_asked_again_at_once() -> None:
    policy = ScriptedPolicy(memory_every=1000)
    tools = [*TOOLS, GOTO_TOOL]
    messages = now(on_the_list_a_while(), SKILLS, SKILLS_HINT)
    first = policy.respond({"tools": tools, "messages": messages})
    use = next(b for b in first.content if b["type"] == "tool_use" and b["name"] == "goTo")
    surprise = [{"type": "tool_result", "tool_use_id": use["id"], "is_error": True,
                 "content": "goTo Career stopped at step 1 of 1: expected Career, reached Skill List (a surprise)"}]
    elsewhere = {**SKILLS, "texts": ["Skill List", "Skill Pts 125"]}  # not the screen goTo was asked on
    messages += [{"role": "assistant", "content": first.content}, turn(elsewhere, SKILLS_HINT, results=surprise)]
    second = policy.respond({"tools": tools, "messages": messages})
    assert action(second.content)[0] != "goTo"  # goes on by hand
    assert "surprise" in second.content[0]["text"]
    later = second
    for k in range(GOTO_PAUSE):  # after a pause the map is trusted again (the list read afresh each turn)
        assert action(later.content)[0] != "goTo", k
        shown = {**SKILLS, "texts": ["Skill List", f"Skill Pts {130 + k}"]}
        messages += [{"role": "assistant", "content": later.content},
                     turn(shown, SKILLS_HINT, results=answered([{"content": later.content}]))]
        later = policy.respond({"tools": tools, "messages": messages})
    assert action(later.content) == ("goTo", {"screen": "Career"})


CHOICE_PAGE = {"buttons": [{"name": "Skip"}, {"name": "Quick"}], "cinematic": "dialogue",
               "texts": ["Event", "Premeditated Mischief", "Join in and set up a secret obstacle course.",
                         "Ask her to help put everything back properly.", "Sweep giggles behind the equipment shed,",
                         "pretending not to know."]}


def test_a_page_the_map_names_an_events_choices_is_answered_with_a_choice() -> None:
    """Where the map tells the page shows the event's choices, the player picks one; without that it taps the story
    on first (from the texts alone a choice and a line of the story read alike)."""
    named = "<map>screen: dialogue (choices); ways out: none known yet</map>"
    picked = ScriptedPolicy(memory_every=1000).respond({"tools": TOOLS, "messages": [turn(CHOICE_PAGE, named)]})
    assert action(picked.content)[0] == "pressButton"
    plain = "<map>screen: dialogue; ways out: advanceDialogue -> dialogue</map>"
    tapped = ScriptedPolicy(memory_every=1000).respond({"tools": TOOLS, "messages": [turn(CHOICE_PAGE, plain)]})
    assert action(tapped.content)[0] == "advanceDialogue"


def test_from_the_title_screen_it_walks_back_into_the_career_when_the_map_knows_the_way() -> None:
    title = {"buttons": [{"name": "Tap to Start"}], "texts": ["LLuMa Derby", "Tap to Start"]}
    known = "<map>screen: LLuMa Derby; ways out: Tap to Start -> Continue Career; goTo: Career</map>"
    reply = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL], "messages": [turn(title, known)]})
    assert action(reply.content) == ("goTo", {"screen": "Career"})
    unknown = "<map>screen: LLuMa Derby; ways out: Tap to Start -> Continue Career</map>"
    by_hand = ScriptedPolicy(memory_every=1000).respond({"tools": [*TOOLS, GOTO_TOOL],
                                                         "messages": [turn(title, unknown)]})
    assert action(by_hand.content) == ("pressButton", {"name": "Tap to Start"})
