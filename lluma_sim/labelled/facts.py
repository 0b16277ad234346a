"""Scoring a reading's facts against the hand labels of the real screenshots (bench/labels/*.facts.json: their README
has the format): the energy gauge, captioned values and gains, the mood word and greyed-out buttons, and the decision
facts (the date, the goal, the raised option, its cards, a list's rows), as the model sees them in the compact JSON.
Used by bench/vision.py and the real-screen tests, so both count the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lluma_sim.labelled.buttons import norm
from lluma_vision.facts.compact import compact
from lluma_vision.models import VisionData, VisionOutput

FILL_TOLERANCE = 0.1  # a gauge read within this of the labelled fill is read (labels measured along one pixel row)


DECISION_KEYS = ("date", "goal", "selected", "supports", "rows")  # the decision facts' keys in a label


def has_facts(want: dict[str, Any] | None) -> bool:
    """A label with anything to score (an empty entry means "looked at, shows none of these")."""
    return bool(want and (want["gauges"] or want["values"] or want["mood"] or want["disabled"]
                          or any(k in want for k in DECISION_KEYS)))


def load(path: Path) -> dict[str, Any]:
    """A facts file ({} when there is none)."""
    return json.loads(path.read_text()) if path.is_file() else {}


def same_caption(read: str, want: str, exact: bool = False) -> bool:
    """The labelled caption is the read caption or (unless `exact`) its last words (an icon glyph read as a letter
    before it), spaces aside ("Concertin turn(s)" is "Concert in turn(s)": the recogniser drops a narrow space no
    rule can put back)."""
    r = [n for n in map(norm, read.split("#")[0].split()) if n]  # norm drops spaces: word by word
    w = "".join(n for n in map(norm, want.split()) if n)
    return bool(w) and any("".join(r[k:]) == w for k in range(1 if exact else len(r)))


@dataclass
class FactScore:
    """Counts over every labelled fact of the screens scored (a fact on a screen not read counts as missed)."""

    gauges: int = 0  # labelled Energy gauges
    gauges_read: int = 0
    values: int = 0  # labelled captioned values and gains
    values_read: int = 0
    values_exact: int = 0  # ...with the caption as labelled and nothing before it
    values_doubtful: int = 0  # ...yet marked doubtful (lluma_vision.facts.checks): a true value must never be
    moods: int = 0
    moods_read: int = 0
    disabled: int = 0  # labelled greyed-out buttons
    disabled_read: int = 0
    disabled_false: int = 0  # buttons marked disabled that are not labelled so
    decisions: int = 0  # labelled decision facts: a date, a goal with its status, the raised option, its cards, a row
    decisions_read: int = 0
    misses: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        return {"energy_gauges": f"{self.gauges_read}/{self.gauges}", "values": f"{self.values_read}/{self.values}",
                "values_exact": f"{self.values_exact}/{self.values}", "values_doubtful": self.values_doubtful,
                "mood": f"{self.moods_read}/{self.moods}",
                "disabled": f"{self.disabled_read}/{self.disabled}", "disabled_false": self.disabled_false,
                "decisions": f"{self.decisions_read}/{self.decisions}", "misses": self.misses}


def score(readings: Iterable[tuple[str, VisionOutput]], facts: dict[str, Any]) -> FactScore:
    """Gauges within FILL_TOLERANCE of the labelled fill (by label), captioned values with their caption in the
    compact JSON, the mood word, disabled buttons (and buttons marked disabled that are not); `misses` lists what was
    not met."""
    s = FactScore()
    for name, reading in readings:
        want = facts.get(name)
        if want is not None:
            _score_one(s, name, reading, want)
    return s


def _score_one(s: FactScore, name: str, reading: VisionOutput, want: dict[str, Any]) -> None:
    view = compact(reading)
    for g in want["gauges"]:
        if g["label"] != "Energy":  # the done-check's gauge; uncaptioned friendship bars are reported apart
            continue
        s.gauges += 1
        hit = any(same_caption(k, "Energy") and abs(f - g["fill"]) <= FILL_TOLERANCE for k, f in view.gauges.items())
        s.gauges_read += hit
        if not hit:
            s.misses.append(f"{name}: Energy {g['fill']} read {view.gauges}")
    for v in want["values"]:
        s.values += 1
        pool = view.gains if v.get("kind") == "gain" else view.values
        read = [k for k, val in pool.items() if same_caption(k, v["caption"]) and norm(val) == norm(v["value"])]
        hit = bool(read)
        s.values_read += hit
        if any(k in view.doubtful for k in read):
            s.values_doubtful += 1
            s.misses.append(f"{name}: {v['caption']!r} {v['value']!r} read but marked doubtful")
        # the caption as labelled and nothing more (no icon letter before it), case, spaces and punctuation aside
        exact = any(same_caption(k, v["caption"], exact=True) and norm(val) == norm(v["value"])
                    for k, val in pool.items())
        s.values_exact += exact
        if hit and not exact:
            s.misses.append(f"{name}: {v.get('kind', 'value')} {v['caption']!r} read with words before its caption")
        if not hit:
            s.misses.append(f"{name}: {v.get('kind', 'value')} {v['caption']!r} {v['value']!r}")
    if want["mood"]:
        s.moods += 1
        s.moods_read += view.mood == want["mood"]
        if view.mood != want["mood"]:
            s.misses.append(f"{name}: mood {want['mood']} read {view.mood}")
    _score_decisions(s, name, view, want)
    marked = {norm(b.name.split("#")[0]) for b in reading.buttons if "disabled" in b.meta}
    labelled = {norm(d) for d in want["disabled"]}
    s.disabled += len(labelled)
    s.disabled_read += len(labelled & marked)
    s.disabled_false += len(marked - labelled)


def _score_decisions(s: FactScore, name: str, view: VisionData, want: dict[str, Any]) -> None:
    """The decision facts as the model is given them: the date and the goal word for word (its status too), the raised
    option, its cards' bonds and hints in order, and each labelled row (in order) holding all of its words."""
    checks: list[tuple[str, object, object]] = []
    if "date" in want:
        checks.append(("date", want["date"], view.date))
    if "goal" in want:
        checks.append(("goal", want["goal"], view.goal and {"text": view.goal.text, "status": view.goal.status}))
    if "selected" in want:
        checks.append(("selected", want["selected"], view.selected))
    if "supports" in want:
        checks.append(("supports", [(c["bond"], c.get("hint", False)) for c in want["supports"]],
                       [(c.bond, c.hint) for c in view.supports]))
    for i, words in enumerate(want.get("rows", [])):
        row = view.rows[i] if i < len(view.rows) else ""
        # spaces aside: the recogniser drops a narrow one ("1600m(Mile)", "10%OFF!") that no rule can put back
        held = all("".join(w.split()) in "".join(row.split()) for w in words)
        checks.append((f"row {i + 1}", words, words if held else row))
    for what, wanted, got in checks:
        s.decisions += 1
        s.decisions_read += wanted == got
        if wanted != got:
            s.misses.append(f"{name}: {what} {wanted!r} read {got!r}")
