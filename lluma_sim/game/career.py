"""Career rules: stats, energy, mood, training, races, skills and the score. No drawing, no input."""

from __future__ import annotations

import random

from pydantic import PrivateAttr

from lluma_sim.game import numbers
from lluma_sim.game import races as race_rules
from lluma_sim.game.content import (
    BOND_START,
    CONDITIONS,
    EVENTS,
    HINT_CHANCE,
    MAX_ENERGY,
    MAX_HINT,
    MOODS,
    PLACES,
    RACE_COINS,
    SKILLS,
    STATS,
    SUPPORT_ABSENT,
    SUPPORT_TYPE,
    SUPPORTS,
    Choice,
    Event,
    Race,
)
from lluma_sim.game.state import CareerData, CareerState, RaceResult

EVENT_CHANCE = 0.35  # after a turn-consuming action


class Career(CareerData):
    """One career run. All randomness comes from the game's seeded RNG, so a seed replays exactly."""

    _rng: random.Random = PrivateAttr()

    @classmethod
    def new(cls, rng: random.Random, max_turns: int, state: CareerData | None = None, trainee: int = 0) -> Career:
        """A fresh career of `trainee`, or one continuing from `state` (a snapshot's), rolling dice on `rng`."""
        c = cls.model_validate(state.model_dump() if state else {"max_turns": max_turns, "trainee": trainee})
        c._rng = rng
        return c

    def state(self) -> CareerState:
        return CareerState.model_validate(self.model_dump())

    # --- training -------------------------------------------------------------------------

    def deal(self) -> None:
        """Where the support cards sit this turn: each on a training, or on none; some show a hint."""
        placed, hints = {}, set()
        for name, _ in SUPPORTS:
            if self._rng.random() < SUPPORT_ABSENT:
                placed[name] = ""
                continue
            placed[name] = self._rng.choice(STATS)
            if self._rng.random() < HINT_CHANCE:
                hints.add(name)
        self.placed, self.hints = placed, frozenset(hints)

    def train(self, training: str) -> None:
        """NUMBERS §2-4: a success gives what the screen showed, bond to the cards on it and a step towards the
        facility's next level (not at a camp); a failure costs no energy and has §3b's outcomes."""
        fail = self.fail_chance(training)
        if self._rng.random() * 100 < fail:
            self._fail(training, fail)
            return
        gains = self.gains(training)
        friends = " (friendship)" if self.friendship(training) else ""
        self.energy = max(0, min(MAX_ENERGY, self.energy + self.energy_change(training)))
        points = gains.pop("Skill Pts")
        for k, v in gains.items():
            self._add(k, v)
        self.skill_points += points
        for name in self.cards_on(training):
            if name in self.hints:  # the "!": a skill hint of the card's type
                self.hint(SUPPORT_TYPE[name] if SUPPORT_TYPE[name] in STATS else None)
            gain = (numbers.BOND_PAL if SUPPORT_TYPE[name] == "Pal" else numbers.BOND_TRAINING) + (
                numbers.BOND_HINT if name in self.hints else 0)
            self.bonds = {**self.bonds, name: min(100, self.bonds.get(name, BOND_START) + gain)}
        if not self.camp:
            self.trained = {**self.trained, training: self.trained.get(training, 0) + 1}
        self.status = f"{training} training{friends}: " + ", ".join(f"{k} +{v}" for k, v in gains.items() if v)

    def _fail(self, training: str, fail: int) -> None:
        """NUMBERS §3b (UREF's odds, the top choice): no energy spent, no gains; the worst kind also loses two
        other stats and gives 10 energy; either may bring Practice Poor."""
        worst = self._rng.random() < numbers.worst_chance(fail)
        kind = numbers.WORST_FAIL if worst else numbers.NORMAL_FAIL
        self.failed += 1
        self.mood = max(0, self.mood + kind.mood)
        self.energy = min(MAX_ENERGY, self.energy + kind.energy)
        if training != "Wit":  # MEE: a failed Wit training gives only its energy result
            self._add(training, kind.trained)
        others = self._rng.sample([s for s in STATS if s != training], kind.others)
        for stat in others:
            self._add(stat, -10)
        if self.condition is None and self._rng.random() < kind.poor:
            self.condition = numbers.PRACTICE_POOR
        lost = ", ".join(f"{s} -10" for s in others)
        self.status = (f"{training} training failed! {training} {kind.trained}"
                       + (f", {lost}" if lost else "") + ", mood down")

    # --- other turn actions ---------------------------------------------------------------

    def rest(self) -> None:
        """NUMBERS §5: +70/+50/+30 energy (a few +30s bring Night Owl); a summer camp's Rest & Recreation instead."""
        if self.camp:
            return self._camp_rest()
        gain, _, owl = self._rng.choices(numbers.REST, weights=[w for _, w, _ in numbers.REST])[0]
        self.energy = min(MAX_ENERGY, self.energy + gain)
        if owl and self.condition is None:
            self.condition = "Night Owl"
        self.status = f"Rested: energy +{gain}"

    def recreation(self) -> None:
        """NUMBERS §5 (UREF's odds): +2 mood, or +1 mood and +10 to +30 energy."""
        if self.camp:
            return self._camp_rest()
        mood, energy, _ = self._rng.choices(numbers.RECREATION, weights=[w for _, _, w in numbers.RECREATION])[0]
        self.mood = min(len(MOODS) - 1, self.mood + mood)
        self.energy = min(MAX_ENERGY, self.energy + energy)
        self.status = f"Recreation: mood {self.mood_word}, energy +{energy}"

    def _camp_rest(self) -> None:
        energy, mood = numbers.CAMP_REST
        self.energy = min(MAX_ENERGY, self.energy + energy)
        self.mood = min(len(MOODS) - 1, self.mood + mood)
        self.status = f"Rest & Recreation: energy +{energy}, mood {self.mood_word}"

    def infirmary(self) -> None:
        """FACTS: a condition cured about 85% of the time, +20 energy."""
        had = self.condition
        if self._rng.random() < numbers.INFIRMARY_CURES:
            self.condition = None
        self.energy = min(MAX_ENERGY, self.energy + numbers.INFIRMARY_ENERGY)
        self.status = f"Infirmary: {had} cured" if self.condition is None else f"Infirmary: {had} not cured yet"

    def next_turn(self) -> bool:
        """Judge the goals due this turn, then advance the calendar; True when a random event should be shown now.
        A goal not met on its turn ends the career (`ended`)."""
        for i, (_, turn) in enumerate(self.goals()):
            if turn == self.turn and not self.goal_met(i):
                self.ended = "goal_missed"
                self.status = "The goal was not reached."
                return False
        self.turn += 1
        if self.over:
            return False
        self.deal()
        return self._rng.random() < EVENT_CHANCE

    def pick_event(self) -> Event:
        """An event from the table: a chain's next step (once) only after its first was met."""
        pool = [e for e in EVENTS if not e.after or (e.after in self.met and e.title not in self.met)]
        event = self._rng.choice(pool)
        self.met = self.met | {event.title}
        return event

    def apply_choice(self, choice: Choice, event: Event | None = None) -> None:
        """A choice's outcome: its effects, or, with its risk, the other ones (drawn on the game's dice)."""
        effects = choice.otherwise if choice.risk and self._rng.random() < choice.risk else choice.effects
        said = []
        for key, v in effects.items():
            if key == "Bond" and event is not None and event.card:
                self.bonds = {**self.bonds, event.card: min(100, self.bonds.get(event.card, BOND_START) + v)}
                said.append(f"{event.card} bond +{v}")
            elif key == "Hint":
                said += [f"{self.hint()} hint" for _ in range(v)]
            elif key == "Condition":
                if self.condition is None:
                    self.condition = self._rng.choice(CONDITIONS)
                    said.append(f"condition {self.condition}")
            else:
                said += self.apply({key: v})
        self.status = "Event: " + ", ".join(said)

    def apply(self, effects: dict[str, int]) -> list[str]:
        """Effects on energy, mood, skill points and stats (an event choice's, a shop item's); each as said."""
        parts = []
        for key, v in effects.items():
            if key == "Energy":
                self.energy = max(0, min(MAX_ENERGY, self.energy + v))
            elif key == "Mood":
                self.mood = max(0, min(len(MOODS) - 1, self.mood + v))
            elif key == "Skill Pts":
                self.skill_points += v
            else:
                self._add(key, v)
            parts.append(f"{key} {v:+d}")
        return parts

    # --- races ----------------------------------------------------------------------------

    def races_available(self) -> list[Race]:
        """The date's races (lluma_sim.game.races): graded ones on their calendar dates, OP and Pre-OP between."""
        return race_rules.on_turn(self.turn, self.max_turns)

    def run_race(self, race: Race, goal: int | None = None) -> RaceResult:
        """Run `race` (for goal `goal`, when it is one's): the trainee's strength for its distance and surface
        (lluma_sim.game.races.strength) against a field of rivals (races.place); the rewards of NUMBERS §6a-6b,
        a share of a win's for a lower place."""
        power = race_rules.strength(self.stats, self.trainee, race, self.mood, self.learned)
        place = race_rules.place(power, race.difficulty, self._rng)
        if self.last_race != self.turn:  # a Try Again runs the same turn's race again: no new race in a row
            self.streak = self.streak + 1 if self.last_race == self.turn - 1 else 1
            self.last_race = self.turn
        share = numbers.PLACE_SHARE[place - 1]
        final = race_rules.final_round(race.name)
        each, count, points = numbers.race_reward(race.grade, goal is not None, final)
        each, points = int(each * share), int(points * share)
        stats = dict.fromkeys(self._rng.sample(list(STATS), count), each) if each else {}
        energy = 0 if goal is not None else numbers.OPTIONAL_ENERGY
        fans = round(race.fans * share)
        self.energy = max(0, self.energy - energy)
        for stat, v in stats.items():
            self._add(stat, v)
        self.skill_points += points
        self.fans += fans
        coins = RACE_COINS[min(place, len(RACE_COINS)) - 1]
        self.coins += coins
        self.wins += place == 1
        self.races += 1
        self.top3 += 1 < place <= 3
        if goal is not None and place <= (self.goals()[goal][0].top or len(PLACES)):
            self.won = self.won | {goal}
        self.status = f"{race.name}: {PLACES[place - 1]} place, fans +{fans}, skill points +{points}"
        return RaceResult(race=race, place=place, points=points, fans=fans, goal=goal, coins=coins, stats=stats,
                          energy=energy)

    def try_again(self, lost: RaceResult) -> RaceResult:
        """An Alarm Clock spent on a lost goal race: as if it had not been run, in a better mood (FACTS: the
        clock raises the mood a level), then run again."""
        self.clocks -= 1
        self.energy = min(MAX_ENERGY, self.energy + lost.energy)
        for stat, v in lost.stats.items():
            self._add(stat, -v)
        self.skill_points -= lost.points
        self.fans -= lost.fans
        self.coins -= lost.coins
        self.wins -= lost.place == 1
        self.races -= 1
        self.top3 -= 1 < lost.place <= 3
        self.mood = min(len(MOODS) - 1, self.mood + 1)
        return self.run_race(lost.race, lost.goal)

    # --- skills ---------------------------------------------------------------------------

    def learn(self, names: list[str]) -> None:
        learned = 0
        for skill in SKILLS:
            cost = self.skill_cost(skill.name)
            if skill.name in names and skill.name not in self.learned and cost <= self.skill_points:
                self.skill_points -= cost
                self.learned = self.learned | {skill.name}
                self._add(skill.stat, skill.bonus)
                learned += 1
        self.status = f"Learned {learned} skill(s)"

    def hint(self, stat: str | None = None) -> str:
        """A skill hint: a level more on a skill (one of `stat`'s, when given), each level 10% off its cost."""
        pool = [s.name for s in SKILLS if stat is None or s.stat == stat] or [s.name for s in SKILLS]
        name = self._rng.choice(pool)
        self.skill_hints = {**self.skill_hints, name: min(MAX_HINT, self.skill_hints.get(name, 0) + 1)}
        return name

    def _add(self, stat: str, v: int) -> None:
        if stat in STATS:
            self.stats[stat] = max(1, min(numbers.STAT_CAP, self.stats[stat] + v))
