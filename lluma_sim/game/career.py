"""Career rules: stats, energy, mood, training, races, skills and the score. No drawing, no input."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from lluma_sim.game.content import (
    CONDITIONS,
    EVENTS,
    MAX_ENERGY,
    MOOD_FACTOR,
    MOODS,
    RACES,
    SKILLS,
    START_SKILL_POINTS,
    START_STATS,
    STATS,
    TRAININGS,
    Choice,
    Event,
    Race,
)

PLACES = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")
EVENT_CHANCE = 0.35  # after a turn-consuming action


@dataclass
class RaceResult:
    race: Race
    place: int  # 1-based
    points: int


@dataclass
class Career:
    """One career run. All randomness comes from the caller's seeded RNG, so a seed replays exactly."""

    rng: random.Random
    max_turns: int
    turn: int = 1
    stats: dict[str, int] = field(default_factory=lambda: dict(START_STATS))
    energy: int = MAX_ENERGY
    mood: int = 2  # index into MOODS
    condition: str | None = None
    skill_points: int = START_SKILL_POINTS
    learned: set[str] = field(default_factory=set)
    wins: int = 0
    top3: int = 0
    status: str = "Your career begins. Good luck!"  # one line on the hub about the last action

    @property
    def over(self) -> bool:
        return self.turn > self.max_turns

    @property
    def mood_word(self) -> str:
        return MOODS[self.mood]

    def score(self) -> int:
        # Gains only, so a career that does nothing scores ~0 and a sensible one grows.
        gained = sum(self.stats.values()) - sum(START_STATS.values())
        skills = sum(s.cost for s in SKILLS if s.name in self.learned) // 2
        return max(0, gained + 120 * self.wins + 40 * self.top3 + skills)

    # --- training -------------------------------------------------------------------------

    def fail_chance(self, training: str) -> int:
        """Failure percent shown on the training screen; rises steeply as energy drops."""
        base = max(0.0, (60 - self.energy) * 1.7)
        if training == "Wit":
            base *= 0.4
        return min(95, round(base))

    def gains(self, training: str) -> dict[str, int]:
        base, _ = TRAININGS[training]
        factor = MOOD_FACTOR[self.mood] * (0.8 if self.condition else 1.0)
        return {k: max(1, round(v * factor)) for k, v in base.items()}

    def train(self, training: str) -> None:
        _, cost = TRAININGS[training]
        failed = self.rng.random() * 100 < self.fail_chance(training)
        self.energy = max(0, self.energy - cost)
        if failed:
            self._add(training, -5)
            self.mood = max(0, self.mood - 1)
            if self.condition is None and self.rng.random() < 0.5:
                self.condition = self.rng.choice(CONDITIONS)
            self.status = f"{training} training failed! {training} -5, mood down"
            return
        gains = self.gains(training)
        bonus = self.rng.randint(0, 3)  # support-card style luck
        gains[training] += bonus
        for k, v in gains.items():
            self._add(k, v)
        self.skill_points += 5 + bonus
        self.status = f"{training} training: " + ", ".join(f"{k} +{v}" for k, v in gains.items())

    # --- other turn actions ---------------------------------------------------------------

    def rest(self) -> None:
        gain = self.rng.choice((30, 50, 70))
        self.energy = min(MAX_ENERGY, self.energy + gain)
        self.status = f"Rested: energy +{gain}"

    def recreation(self) -> None:
        self.mood = min(len(MOODS) - 1, self.mood + 1)
        self.energy = min(MAX_ENERGY, self.energy + 10)
        self.status = f"Recreation: mood {self.mood_word}, energy +10"

    def infirmary(self) -> None:
        cured = self.condition
        self.condition = None
        self.energy = min(MAX_ENERGY, self.energy + 10)
        self.status = f"Infirmary: {cured} cured"

    def next_turn(self) -> bool:
        """Advance the calendar; True when a random event should be shown now."""
        self.turn += 1
        return not self.over and self.rng.random() < EVENT_CHANCE

    def pick_event(self) -> Event:
        return self.rng.choice(EVENTS)

    def apply_choice(self, choice: Choice) -> None:
        parts = []
        for key, v in choice.effects.items():
            if key == "Energy":
                self.energy = max(0, min(MAX_ENERGY, self.energy + v))
            elif key == "Mood":
                self.mood = max(0, min(len(MOODS) - 1, self.mood + v))
            elif key == "Skill Pts":
                self.skill_points += v
            else:
                self._add(key, v)
            parts.append(f"{key} {v:+d}")
        self.status = "Event: " + ", ".join(parts)

    # --- races ----------------------------------------------------------------------------

    def races_available(self) -> list[Race]:
        """Two or three races that get harder as the career goes on."""
        start = min(len(RACES) - 3, (self.turn - 1) * len(RACES) // max(1, self.max_turns))
        count = 3 if self.turn % 2 else 2
        return list(RACES[start : start + count])

    def run_race(self, race: Race) -> RaceResult:
        power = sum(self.stats.values()) * MOOD_FACTOR[self.mood] * (0.7 + 0.3 * self.energy / MAX_ENERGY)
        margin = (power - race.difficulty) / 40 + self.rng.uniform(-1.5, 1.5)
        place = 1 if margin > 1 else 2 if margin > 0 else 3 if margin > -1 else 4 + min(4, int(-margin - 1))
        points = race.points if place == 1 else race.points // 2 if place <= 3 else 10
        self.energy = max(0, self.energy - 15)
        self.skill_points += points
        self.wins += place == 1
        self.top3 += 1 < place <= 3
        self.status = f"{race.name}: {PLACES[place - 1]} place, skill points +{points}"
        return RaceResult(race, place, points)

    # --- skills ---------------------------------------------------------------------------

    def learn(self, names: list[str]) -> None:
        for skill in SKILLS:
            if skill.name in names and skill.name not in self.learned and skill.cost <= self.skill_points:
                self.skill_points -= skill.cost
                self.learned.add(skill.name)
                self._add(skill.stat, skill.bonus)
        self.status = f"Learned {len(names)} skill(s)"

    def _add(self, stat: str, v: int) -> None:
        if stat in STATS:
            self.stats[stat] = max(1, min(1200, self.stats[stat] + v))
