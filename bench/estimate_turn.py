"""The shared token estimator on a turn shaped like the one the original harness measured.

The original harness's API usage said 24,479 input tokens for one turn: system prompt about 2,300, tools about
1,500, history 8-10K, vision JSON about 4,500 (21 buttons, verbose per-button form), two screenshots about 3,000,
memory files 4-6K. This script builds that turn from representative synthetic content (deterministic: the
harness's own text is not available) and prints lluma_agent.context.tokens' estimate per section against those figures.

    .venv/bin/python bench/estimate_turn.py [--json]
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lluma_agent.context import tokens
from lluma_agent.context.tokens import estimate_block_tokens, estimate_request, estimate_text_tokens  # noqa: E402

MEASURED_TOTAL = 24_479
REPORTED = {
    "system prompt": "~2,300",
    "tools": "~1,500",
    "history": "8,000-10,000",
    "vision JSON (21 buttons)": "~4,500",
    "screenshots (2)": "~3,000",
    "memory files": "4,000-6,000",
}
SCREENS = [
    "home", "career hub", "training", "event", "skills", "races", "race result", "shop", "gacha", "settings",
    "support cards", "team trials", "daily missions", "presents", "story", "career end",
]  # fmt: skip
BUTTONS = [
    "Rest", "Training", "Skills", "Infirmary", "Recreation", "Races", "Back", "Menu", "Speed", "Stamina", "Power",
    "Guts", "Wit", "Skip", "Quick", "Log", "Auto", "OK", "Cancel", "Details", "Next",
]  # fmt: skip


def system_prompt(rng: random.Random) -> str:
    parts = [
        "You are an autonomous agent playing Uma Musume Pretty Derby on an Android phone through ADB. "
        "Each turn you receive the screen as JSON extracted by OCR and a vision model, plus screenshots, "
        "and you answer with tool calls. Always explain your reasoning briefly before acting.",
        "## General rules\n"
        + "\n".join(
            f"- {r}"
            for r in [
                "Only press buttons that appear in the current screen JSON; names must match exactly.",
                "If the previous action did not change the screen, do not repeat it; try another button or go back.",
                "Never spend premium currency, never open the shop, and never change account settings.",
                "Confirmation dialogs appear after most important actions; read them and press OK when they match "
                "what you intended, Cancel otherwise.",
                "Loading screens and cutscenes need no input; wait or press Skip when it is offered.",
                "Keep your memory files up to date with what you learn about screens, events and strategy.",
            ]
        ),
    ]
    for screen in SCREENS:
        buttons = ", ".join(rng.sample(BUTTONS, 5))
        parts.append(
            f"## The {screen} screen\nYou reach the {screen} screen from the previous menu or after an event. "
            f"Typical buttons are {buttons}. Read the texts to know the current state before choosing, and "
            f"prefer actions that move the career forward. When the {screen} screen shows a dialog, handle "
            "the dialog first. If nothing on this screen helps the current goal, go back to the career hub "
            "and choose again. Note anything surprising about this screen in your memory files."
        )
    parts.append(
        "## Training strategy\nTrain Speed and Power early, Stamina before long races, Wit when energy is low "
        "because it is cheap. Rest when energy falls below 40 percent: the failure rate rises quickly and a "
        "failed training loses stats and mood. Go to Recreation when the mood is Bad or Awful. Use the "
        "Infirmary as soon as a condition appears. Enter races when the stat total is close to the race's "
        "requirement and energy is above 60 percent; a win gives skill points. Learn skills that match the "
        "trainee's running style and distance when you have enough points, starting with cheap ones."
    )
    parts.append(
        "## Output format\nFirst write one or two sentences of reasoning: what the screen is, what the goal is, "
        "and which button serves it. Then call exactly one input tool. Memory tools can be called in the same "
        "turn when you learned something worth keeping. Do not invent button names and do not describe "
        "coordinates: the harness resolves names to positions."
    )
    return "\n\n".join(parts)


def tool_definitions() -> list[dict[str, Any]]:
    def tool(name: str, desc: str, props: dict[str, str] | None = None) -> dict[str, Any]:
        props = props or {}
        return {
            "name": name,
            "description": desc,
            "input_schema": {
                "type": "object",
                "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
                "required": list(props),
            },
        }

    return [
        tool(
            "pressButton",
            "Press a button on the current screen by its exact name from the screen JSON. The "
            "harness finds the button's bounds and taps inside them. Returns whether the tap was sent.",
            {"name": "Exact button name as listed in the screen JSON buttons array."},
        ),
        tool("advanceDialogue", "Tap the dialogue box to advance story or event text by one page."),
        tool("back", "Go back one screen: presses a visible Back button, otherwise the Android back key."),
        tool("confirm", "Press the confirming button (OK, Confirm, Yes) of the dialog currently shown."),
        tool("scrollUp", "Scroll the current list up by about one page."),
        tool("scrollDown", "Scroll the current list down by about one page."),
        tool(
            "swipe",
            "Swipe between two points given as fractions of the screen.",
            {"start": "x,y start as fractions", "end": "x,y end as fractions"},
        ),
        tool(
            "wait",
            "Wait for the given number of seconds (loading screens, animations).",
            {"seconds": "Seconds to wait, 1-10."},
        ),
        tool(
            "createMemoryFile",
            "Create a new memory file in the memory folder. Use short names such as "
            "strategy.md. Fails if the file exists.",
            {"name": "File name.", "content": "Full content."},
        ),
        tool(
            "writeMemoryFile",
            "Replace the content of an existing memory file.",
            {"name": "File name.", "content": "New full content."},
        ),
        tool("readMemoryFile", "Return the content of a memory file.", {"name": "File name."}),
        tool("deleteMemoryFile", "Delete a memory file.", {"name": "File name."}),
        tool("listMemoryFiles", "List the memory files with their sizes and last modification times."),
        tool(
            "tapCoordinates",
            "Tap at a position given as fractions of the screen width and height. Only use "
            "this when a button is visible in the screenshot but missing from the screen JSON.",
            {"x": "Horizontal position, 0-1.", "y": "Vertical position, 0-1."},
        ),
        tool(
            "longPress",
            "Press and hold a button by name, for example to see a skill's details.",
            {"name": "Exact button name.", "seconds": "How long to hold, 1-3."},
        ),
        tool(
            "searchKnowledge",
            "Search the game knowledge base (events, skills, races) for a phrase and return the best matching entries.",
            {"query": "Words to look for."},
        ),
    ]


def verbose_vision(rng: random.Random, n_buttons: int = 21) -> str:
    """The original harness's per-button form: name, full_label, bounds, metadata dict, region (indented)."""
    buttons = []
    for i, name in enumerate(BUTTONS[:n_buttons]):
        x, y = rng.randint(20, 700), rng.randint(100, 1800)
        buttons.append({
            "name": name,
            "full_label": f"{name} button" if i % 3 else f"{name} ({rng.randint(1, 99)}%)",
            "bounds": {"x1": x, "y1": y, "x2": x + rng.randint(150, 360), "y2": y + rng.randint(60, 140)},
            "center": {"x": x + 120, "y": y + 50},
            "metadata": {"type": rng.choice(["button", "tab", "choice"]), "color": rng.choice(["green", "white"]),
                         "is_enabled": i != 3, "is_selected": False, "confidence": round(rng.uniform(0.7, 0.99), 3),
                         "source": rng.choice(["ocr", "vlm"]), "text_size": rng.choice(["small", "medium", "large"]),
                         "badge": rng.choice([None, "NEW", "!"]),
                         "description": f"{rng.choice(['Green', 'White', 'Rounded'])} button in the "
                         f"{rng.choice(['lower', 'upper', 'middle'])} part of the screen that opens {name}"},
            "region": rng.choice(["top", "middle", "bottom"]),
        })  # fmt: skip
    screen = {
        "screen_id": "career_hub",
        "buttons": buttons,
        "texts": [{"text": t, "bounds": [rng.randint(0, 500), rng.randint(0, 1800), rng.randint(500, 1080),
                                         rng.randint(0, 1900)], "confidence": round(rng.uniform(0.8, 1), 3)}
                  for t in ["Turn 14/72", "Energy 62/100", "Mood: Good", "Speed 312", "Stamina 244", "Power 280",
                            "Guts 190", "Wit 221", "Skill Pts 145", "Senior Year Early April"]],
        "menu": {"visible": False, "usable": False, "selected_tab": None, "tabs": []},
        "scrollbar": {"visible": False, "can_scroll_up": False, "can_scroll_down": False},
    }  # fmt: skip
    return json.dumps(screen, indent=2)


def screenshot(rng: random.Random) -> dict[str, Any]:
    img = Image.new("RGB", (1080, 1920), (rng.randint(200, 255), 240, 250))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(buf.getvalue()).decode()}}  # fmt: skip


def history(rng: random.Random, turns: int = 16) -> list[dict[str, Any]]:
    """A sliding window of recent turns, each with a condensed screen JSON (names, regions, enabled)."""
    msgs: list[dict[str, Any]] = []
    for t in range(turns):
        names = rng.sample(BUTTONS, 18)
        screen = {
            "screen": rng.choice(SCREENS),
            "buttons": [{"name": n, "region": rng.choice(["top", "middle", "bottom"]), "enabled": True} for n in names],
            "texts": [f"Turn {t + 1}/72", f"Energy {rng.randint(20, 100)}/100", f"Speed {rng.randint(200, 400)}",
                      f"Stamina {rng.randint(150, 300)}", f"Power {rng.randint(150, 300)}", "Mood: Good"],
        }  # fmt: skip
        user_text = f"Turn {t}. Previous action: pressed {rng.choice(BUTTONS)}; screen changed.\n{json.dumps(screen)}"
        reasoning = (
            f"The {screen['screen']} screen is shown and energy is fine, so the best move is to keep training. "
            f"Speed is the priority this season because the next target race is a mile race, and the failure "
            f"rate is still low. I will press {names[0]} and check the result on the next screen; if the screen "
            "does not change I will try the Back button and reopen the menu instead."
        )
        tid = f"toolu_{t:04d}"
        prev_id = f"toolu_{t - 1:04d}"
        user: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": prev_id, "content": "ok"}] if t else []
        msgs.append({"role": "user", "content": [*user, {"type": "text", "text": user_text}]})
        msgs.append({"role": "assistant", "content": [
            {"type": "text", "text": reasoning},
            {"type": "tool_use", "id": tid, "name": "pressButton", "input": {"name": names[0]}},
        ]})  # fmt: skip
    return msgs


def memory_files(rng: random.Random) -> str:
    strategy = "# strategy.md\n" + "\n".join(
        f"- {rng.choice(['Early', 'Mid', 'Late'])} career: train {rng.choice(BUTTONS[8:13])} when energy is above "
        f"{rng.randint(40, 70)}%, rest otherwise; target race {rng.choice(['Hopeful Stakes', 'Japanese Derby'])}."
        for _ in range(60)
    )
    screens = "# screens.md\n" + "\n".join(
        f"## {s}\nReached from the hub. Buttons: {', '.join(rng.sample(BUTTONS, 6))}. Notes: the {s} screen "
        f"sometimes shows a dialog first; press OK to continue. Back returns to the previous screen."
        for s in SCREENS
    )
    progress = "# progress.yaml\n" + "\n".join(
        f"turn_{i}:\n  action: {rng.choice(BUTTONS)}\n  energy: {rng.randint(10, 100)}\n  result: ok"
        for i in range(100)
    )
    return "\n\n".join([strategy, screens, progress])


def build_turn(seed: int = 24479) -> dict[str, Any]:
    rng = random.Random(seed)
    return {
        "system": system_prompt(rng),
        "tools": tool_definitions(),
        "memory": memory_files(rng),
        "history": history(rng),
        "vision": verbose_vision(rng),
        "screenshots": [screenshot(rng), screenshot(rng)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    turn = build_turn()
    current = [
        {"type": "tool_result", "tool_use_id": "toolu_0015", "content": "ok"},
        {"type": "text", "text": f"<memory>\n{turn['memory']}\n</memory>"},
        {"type": "text", "text": turn["vision"]},
        *turn["screenshots"],
    ]
    request = {
        "system": turn["system"],
        "tools": turn["tools"],
        "messages": [*turn["history"], {"role": "user", "content": current}],
    }
    est = estimate_request(**request)
    sections = {
        "system prompt": est.system,
        "tools": est.tools,
        "history": sum(est.messages[:-1]),
        "vision JSON (21 buttons)": estimate_text_tokens(turn["vision"]),
        "screenshots (2)": sum(estimate_block_tokens(b) for b in turn["screenshots"]),
        "memory files": estimate_block_tokens(current[1]),
    }
    overhead = est.total - sum(sections.values())
    chars = {"system prompt": len(turn["system"]), "vision JSON (21 buttons)": len(turn["vision"]),
             "memory files": len(turn["memory"]), "tools": len(json.dumps(turn["tools"]))}  # fmt: skip
    if args.json:
        print(json.dumps({"sections": sections, "other": overhead, "total": est.total, "measured": MEASURED_TOTAL}))
        return 0
    print("Estimated input tokens of a harness-like turn (the agent's estimator; an ESTIMATE, not the API's count)\n")
    print(f"{'section':<26}{'estimate':>10}  {'harness reported':>17}  chars/token")
    for name, n in sections.items():
        ratio = f"{chars[name] / n:.2f}" if name in chars and n else "-"
        print(f"{name:<26}{n:>10,}  {REPORTED[name]:>17}  {ratio:>11}")
    print(f"{'message/tool overheads':<26}{overhead:>10,}")
    print(f"{'total':<26}{est.total:>10,}  {MEASURED_TOTAL:>17,}  ({100 * (est.total / MEASURED_TOTAL - 1):+.1f}%)")
    print("\nMethod:", tokens.METHOD)
    print(
        "Screenshots: 1080x1920 PNG, resized to the model's limit (long edge <= 1568 px, <= 1568 tokens), then "
        "ceil(w/28) x ceil(h/28). Tools include the API's 346-token tool-use system prompt."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
