"""What the model sees of a screen: the compact VisionData (current turn) and a one-line summary (past turns).

Compact JSON: no bounds (taps resolve names against the full VisionOutput), no empty or default
fields, keys always in the same order, at most `max_buttons` buttons (highest confidence first)
and `max_texts` texts (highest confidence kept, shown top to bottom).
"""

from __future__ import annotations

import statistics

from lluma_vision.facts.career import date_of, goal_of
from lluma_vision.facts.raised import raised
from lluma_vision.facts.rows import rows_of
from lluma_vision.facts.values import box_key, boxes_of, keyed, unique_keys
from lluma_vision.models import (
    Button,
    CaptionedValue,
    CompactButton,
    CompactMenu,
    CompactScroll,
    CompactSupport,
    Gauge,
    VisionData,
    VisionOutput,
)

# evidence: 79c57df (the first OCR reading)
TEXT_CHARS = 160  # a dialogue line longer than this is cut (the screenshot has the rest)


def _ranked(out: VisionOutput) -> list[Button]:
    # confidence first; ties in reading order so equal-confidence screens always serialise the same way
    return sorted(out.buttons, key=lambda b: (-b.confidence, b.bounds.y0, b.bounds.x0, b.name))


def compact(out: VisionOutput, max_buttons: int = 30, max_texts: int = 12) -> VisionData:
    buttons = [
        CompactButton(name=b.name, meta=b.meta or None, region=b.region or None)
        for b in _ranked(out)[: max(0, max_buttons)]
    ]
    facts = boxes_of(out.values)  # lines shown as values or gains are not repeated as texts
    loose = [t for t in out.loose_texts if box_key(t.bounds) not in facts]
    kept = sorted(loose, key=lambda t: -t.confidence)[: max(0, max_texts)]
    # reading order by rows: lines whose centres are within half a line height read left to right
    q = max(1.0, statistics.median(t.bounds.height for t in kept) / 2) if kept else 1.0
    kept.sort(key=lambda t: (round((t.bounds.y0 + t.bounds.y1) / 2 / q), t.bounds.x0))
    texts = [t.text if len(t.text) <= TEXT_CHARS else t.text[: TEXT_CHARS - 1] + "…" for t in kept if t.text.strip()]
    menu = CompactMenu(usable=out.menu.usable, selected=out.menu.selected) if out.menu else None
    scroll = CompactScroll(up=out.scrollbar.up, down=out.scrollbar.down) if out.scrollbar else None
    values, gains = _marked(out.values, "value"), _marked(out.values, "gain")
    return VisionData(
        buttons=buttons,
        texts=texts,
        menu=menu,
        scroll=scroll,
        cinematic=None if out.cinematic == "none" else out.cinematic,
        gauges=gauge_fills(out.gauges),
        values=values,
        gains=gains,
        mood=out.mood,
        doubtful=_doubtful_gauges(out.gauges) + [k for d in (values, gains) for k, v in d.items() if v.endswith(DOUBT)],
        selected=r.selected if (r := raised(out)) else None,
        supports=[CompactSupport(bond=s.bond, hint=s.hint) for s in out.supports],
        date=date_of(out),
        goal=goal_of(out),
        rows=rows_of(out),
    )


DOUBT = "?"  # after a value that failed a check (lluma_vision.facts.checks, lluma_agent.context.plausible)


def _marked(values: list[CaptionedValue], kind: str) -> dict[str, str]:
    """caption -> value (or gain), a doubtful one shown with DOUBT after it: never passed on as sure."""
    return keyed([v.model_copy(update={"value": v.value + DOUBT}) if v.doubtful else v for v in values], kind)


def _doubtful_gauges(gauges: list[Gauge]) -> list[str]:
    return [k for k, g in unique_keys((g.label, g) for g in gauges).items() if g.doubtful]


def gauge_fills(gauges: list[Gauge]) -> dict[str, float]:
    """label -> fill rounded to 2 places; a label seen again gets `#2`, as button names do."""
    return unique_keys((g.label, round(g.fill, 2)) for g in gauges)


def model_view(out: VisionOutput, max_buttons: int, max_texts: int) -> str:
    """The `<vision>` payload the decision model receives for this reading (the turn and `lluma vision --compact`)."""
    return compact(out, max_buttons, max_texts).to_json()


def summarize(out: VisionOutput, max_names: int = 8, name_chars: int = 22) -> str:
    """One short line for a past turn, e.g. `buttons: Rest, Training, Skills | tab Home | scroll down`."""
    parts: list[str] = []
    if out.cinematic != "none":
        parts.append(out.cinematic)
    if out.gauges:  # so the history shows the trend (Energy 62% -> 48%)
        doubt = _doubtful_gauges(out.gauges)
        parts.append(", ".join(f"{k} {round(v * 100)}%{DOUBT if k in doubt else ''}"
                               for k, v in gauge_fills(out.gauges).items()))
    top = _ranked(out)[:max_names]
    top.sort(key=lambda b: (b.bounds.y0, b.bounds.x0))  # reading order is easier to recognise
    names = [b.name if len(b.name) <= name_chars else b.name[: name_chars - 1] + "…" for b in top]
    if names:
        more = len(out.buttons) - len(names)
        parts.append("buttons: " + ", ".join(names) + (f" +{more}" if more > 0 else ""))
    if out.menu is not None:
        if not out.menu.usable:
            parts.append("tabs blocked")
        elif out.menu.selected:
            parts.append(f"tab {out.menu.selected}")
    if out.scrollbar is not None:
        ways = [w for w, ok in (("up", out.scrollbar.up), ("down", out.scrollbar.down)) if ok]
        parts.append("scroll " + "+".join(ways) if ways else "scroll end")
    return " | ".join(parts) if parts else "no buttons"
