"""Static game content: trainings, skills, races, events. Plain data so rules and screens share one source."""

from __future__ import annotations

from dataclasses import dataclass, field

from lluma_sim.game import numbers
from lluma_sim.game.numbers import BOND_LEVELS
from lluma_sim.game.numbers import MAX_ENERGY as MAX_ENERGY
from lluma_sim.game.numbers import START_SKILL_POINTS as START_SKILL_POINTS
from lluma_sim.game.numbers import STATS as STATS

MOODS = ("Awful", "Bad", "Normal", "Good", "Great")
START_STATS = {"Speed": 90, "Stamina": 85, "Power": 80, "Guts": 75, "Wit": 80}
# Each trainee's growth rates, percent (screens_app.TRAINEES order). NUMBERS §2 gives only their range (0-30%)
# and Haru Urara's; these three are as player guides list them, unverified against the client [GUESS].
GROWTH: tuple[dict[str, int], ...] = (
    {"Stamina": 20, "Wit": 10},  # Special Week
    {"Speed": 20, "Wit": 10},  # Silence Suzuka
    {"Speed": 20, "Wit": 10},  # Tokai Teio
)
PLACES = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")

# Each training at level 1: the stats it raises and its energy cost (negative: Wit restores), NUMBERS §1
TRAININGS: dict[str, tuple[dict[str, int], int]] = {
    t: ({k: v for k, v in numbers.base(t, 1).items() if k in STATS}, -numbers.ENERGY[t][0]) for t in STATS}

CONDITIONS = ("Headache", "Night Owl", "Skin Outbreak")

# The support deck (screens_app.DECK and its borrowed friend's card) with each card's type; "Pal" has no training
# of its own. Each turn every card sits on one training, or on none (FACTS: the training screen).
SUPPORTS: tuple[tuple[str, str], ...] = (
    ("Kitasan Black", "Speed"),
    ("Fine Motion", "Wit"),
    ("Super Creek", "Stamina"),
    ("Tazuna Hayakawa", "Pal"),
    ("Sakura Bakushin O", "Speed"),
    ("Twin Turbo", "Guts"),
)
SUPPORT_TYPE = dict(SUPPORTS)


@dataclass(frozen=True)
class Card:
    """A support card's bonuses (percent) that the gain formula uses (NUMBERS §2)."""

    friendship: int  # x(1 + this) on a friendship training of its own type
    mood_effect: int  # raises the mood's share of the gain
    training_effect: int  # added over every card on the tile
    rarity: str = "SSR"  # its chain of events is 3 steps long, an SR's 2 (NUMBERS §5, MEE's event model)


# A deck a real player borrows and owns: SSR cards (friendship 25-35%, training effect 10-15%, mood effect 30-60%)
# and one SR (friendship 20%, training effect 5%), the ranges card databases show for them (issue 52). The Pal card
# never makes a friendship training (NUMBERS §2).
CARDS: dict[str, Card] = {
    "Kitasan Black": Card(25, 30, 10),
    "Fine Motion": Card(30, 30, 10),
    "Super Creek": Card(25, 40, 10),
    "Tazuna Hayakawa": Card(0, 60, 5),
    "Sakura Bakushin O": Card(35, 30, 15),
    "Twin Turbo": Card(20, 30, 5, "SR"),
}
BOND_START = 15  # NUMBERS §4: a card's initial gauge, "commonly 0-35"
SUPPORT_ABSENT = 1 / 11  # NUMBERS §2 [GUESS]: "each ~18% with ~1/11 absent"; a card sits on no training this turn
HINT_CHANCE = 0.15  # the chance a placed card shows a "!" hint (a skill hint and more bond when trained with)
HINT_OFF = 10  # percent off a skill's cost per hint level (FACTS: "Hint Lvl 3", "30% OFF!")
MAX_HINT = 5


def bond_level(bond: int) -> str:
    return next(word for floor, word in BOND_LEVELS if bond >= floor)


@dataclass(frozen=True)
class Skill:
    name: str
    cost: int
    stat: str  # the stat it nudges when learned
    bonus: int
    text: str = ""  # the row's description

    @property
    def rating(self) -> int:
        """Its value in the career's rating: NUMBERS §7 gives ~1.5 rating per skill point spent (ogatetsu's
        examples); each real skill has its own value, these are not the client's."""
        return self.cost * 3 // 2


SKILLS: tuple[Skill, ...] = (
    Skill("Corner Adept", 90, "Speed", 6, "Increase velocity on corners."),
    Skill("Straightaway Adept", 110, "Speed", 8, "Increase velocity on straights."),
    Skill("Slick Surge", 180, "Power", 14, "Increase acceleration mid-race."),
    Skill("Updrafters", 160, "Power", 12, "Increase velocity on uphills."),
    Skill("Front Runner Corners", 117, "Speed", 9, "Increase velocity on corners (Front)."),
    Skill("Pace Keeper", 80, "Wit", 6, "Keep a steady pace early on."),
    Skill("Stamina to Spare", 130, "Stamina", 10, "Recover endurance on straights."),
    Skill("Deep Breaths", 100, "Stamina", 8, "Recover endurance mid-race."),
    Skill("Iron Will", 150, "Guts", 12, "Increase guts in the last spurt."),
    Skill("Focus", 70, "Wit", 5, "Improve the start out of the gate."),
    Skill("Late Charge", 200, "Power", 16, "Increase velocity in the last spurt."),
    Skill("Fast Learner", 60, "Wit", 4, "Lower the cost of skills learned later."),
    # gold skills (the real list's rarer, dearer ones): NUMBERS §8 puts 1000-1600 skill points in a run, more than
    # the white ones above cost, and §7 ~1.5 rating a point spent on gold skills
    Skill("Beeline Burst", 170, "Speed", 10, "Greatly increase velocity on straights."),
    Skill("Corner Connoisseur", 170, "Speed", 10, "Greatly increase velocity on corners."),
    Skill("Swinging Maestro", 200, "Stamina", 12, "Greatly recover endurance on corners."),
    Skill("Concentration", 160, "Wit", 8, "Greatly improve the start out of the gate."),
    Skill("Unrestrained", 190, "Speed", 12, "Greatly increase velocity when leading."),
    Skill("Center Stage", 180, "Power", 12, "Greatly increase acceleration mid-race."),
    Skill("Tail Held High", 150, "Guts", 10, "Greatly increase guts in the last spurt."),
    Skill("Calm in a Crowd", 140, "Wit", 8, "Keep calm when surrounded mid-race."),
)


@dataclass(frozen=True)
class Race:
    name: str
    grade: str  # "EX", "G1", "G2", "G3", "OP", "Pre-OP", "Debut"
    distance: str  # "2400m Turf": the length and the surface
    difficulty: int  # stat total the trainee needs for an even chance to win
    points: int  # skill points for a win
    fans: int = 0  # fans for a win; a lower place earns numbers.PLACE_SHARE of them
    track: str = "Tokyo"  # the racecourse
    direction: str = "Left"

    @property
    def meters(self) -> int:
        return int(self.distance.split("m")[0])

    @property
    def surface(self) -> str:
        return "Dirt" if "Dirt" in self.distance else "Turf"

    @property
    def category(self) -> str:
        """The distance's class as the track line prints it (Sprint up to 1400m, Mile to 1800m, Med to 2400m)."""
        m = self.meters
        return "Sprint" if m <= 1400 else "Mile" if m <= 1800 else "Med" if m <= 2400 else "Long"

    @property
    def line(self) -> str:
        """The track line of a race row: "Tokyo Turf 2400m (Med) Left" (FACTS)."""
        return f"{self.track} {self.surface} {self.meters}m ({self.category}) {self.direction}"


# The race calendar: (calendar turn 1..78, name, grade, distance, racecourse, direction, fans for a win). The
# graded races are the real calendar's, their fans NUMBERS §6b's (its named examples; the others near their grade's
# mean: G1 ~11,700, G2 ~5,800, G3 ~3,750, OP ~2,200, Pre-OP 1,000). OP and Pre-OP fill the dates between.
CALENDAR: tuple[tuple[int, str, str, str, str, str, int], ...] = (
    (14, "Niigata Junior Stakes", "G3", "1600m Turf", "Niigata", "Left", 3500),
    (17, "Saudi Arabia Royal Cup", "G3", "1600m Turf", "Tokyo", "Left", 3700),
    (20, "Keio Hai Junior Stakes", "G2", "1400m Turf", "Tokyo", "Left", 5500),
    (22, "Asahi Hai Futurity Stakes", "G1", "1600m Turf", "Hanshin", "Right", 7000),
    (24, "Hopeful Stakes", "G1", "2000m Turf", "Nakayama", "Right", 7000),
    (27, "Kisaragi Sho", "G3", "1800m Turf", "Kyoto", "Right", 3900),
    (28, "Kyodo News Hai", "G3", "1800m Turf", "Tokyo", "Left", 3900),
    (30, "Yayoi Sho", "G2", "2000m Turf", "Nakayama", "Right", 5400),
    (31, "Satsuki Sho", "G1", "2000m Turf", "Nakayama", "Right", 11000),
    (34, "Japanese Derby", "G1", "2400m Turf", "Tokyo", "Left", 20000),
    (36, "Japan Dirt Derby", "G1", "2000m Dirt", "Ohi", "Right", 9000),
    (42, "Kobe Shimbun Hai", "G2", "2400m Turf", "Hanshin", "Right", 5800),
    (44, "Kikuka Sho", "G1", "3000m Turf", "Kyoto", "Right", 12000),
    (46, "Tenno Sho (Autumn)", "G1", "2000m Turf", "Tokyo", "Left", 15000),
    (47, "Japan Cup", "G1", "2400m Turf", "Tokyo", "Left", 30000),
    (48, "Arima Kinen", "G1", "2500m Turf", "Nakayama", "Right", 30000),
    (54, "Osaka Hai", "G1", "2000m Turf", "Hanshin", "Right", 12000),
    (56, "Tenno Sho (Spring)", "G1", "3200m Turf", "Kyoto", "Right", 15000),
    (60, "Takarazuka Kinen", "G1", "2200m Turf", "Hanshin", "Right", 15000),
    (68, "Tenno Sho (Autumn)", "G1", "2000m Turf", "Tokyo", "Left", 15000),
    (70, "Japan Cup", "G1", "2400m Turf", "Tokyo", "Left", 30000),
    (72, "Arima Kinen", "G1", "2500m Turf", "Nakayama", "Right", 30000),
)
FILLERS: tuple[tuple[str, str, str, str, str, int], ...] = (  # (name, grade, distance, racecourse, direction, fans)
    ("Hagi Stakes", "OP", "1800m Turf", "Kyoto", "Right", 2200),
    ("Cattleya Sho", "Pre-OP", "1600m Turf", "Tokyo", "Left", 1000),
    ("Wakagoma Stakes", "OP", "2000m Turf", "Kyoto", "Right", 2200),
    ("Fukushima TV Open", "OP", "1800m Turf", "Fukushima", "Right", 2200),
    ("Kimmei Sho", "Pre-OP", "2000m Turf", "Fukushima", "Right", 1000),
    ("Sweet Pea Stakes", "Pre-OP", "1800m Turf", "Tokyo", "Left", 1000),
    ("Shirayuri Stakes", "OP", "1800m Turf", "Tokyo", "Left", 2200),
    ("Hyacinth Stakes", "OP", "1600m Dirt", "Tokyo", "Left", 2200),
    ("Shiun Stakes", "OP", "1800m Turf", "Kyoto", "Right", 2200),
    ("Aoi Stakes", "OP", "1200m Turf", "Kyoto", "Right", 2200),
)


@dataclass(frozen=True)
class Choice:
    """An event choice and its outcome (FACTS: each choice has outcomes, some at random). Effects: stat names,
    "Energy", "Mood", "Skill Pts", "Bond" (the event's support card), "Hint" (levels on a skill), "Condition" (1:
    the trainee catches one)."""

    text: str
    effects: dict[str, int] = field(default_factory=dict)
    risk: float = 0.0  # the chance it goes the other way
    otherwise: dict[str, int] = field(default_factory=dict)  # its effects then


@dataclass(frozen=True)
class Event:
    title: str
    pages: tuple[str, ...]
    choices: tuple[Choice, ...]
    after: str = ""  # a chain's next step: shown once, only after the event of this title was met
    card: str = ""  # a support card's event: its "Bond" effects go to that card


EVENTS: tuple[Event, ...] = (
    Event(
        "Ah, Friendship",
        (
            "Kitasan waves from across the track, holding two bottles of water.",
            "She says you have a good set of pipes and should join the school choir.",
            "Amazing! I don't feel embarrassed at all anymore!",
        ),
        (
            Choice("You have a good set of pipes!", {"Guts": 10, "Mood": 1}),
            Choice("Now you've just gotta get ready for the test!", {"Wit": 12}),
        ),
    ),
    Event(
        "Fashion Advice",
        (
            "Mayano spins around in a brand new outfit for the weekend.",
            "What do you think, Trainer? Does it look grown-up enough?",
        ),
        (
            Choice("It looks great, let's go for a run in it!", {"Speed": 8, "Energy": -5}),
            Choice("Maybe something more comfortable for training.", {"Stamina": 10}),
            Choice("Let's take the afternoon off and go shopping.", {"Energy": 15, "Mood": 1}),
        ),
    ),
    Event(
        "Paying It Forward",
        (
            "A younger student asks how to keep going when the last corner hurts.",
            "You remember your own first race and smile.",
        ),
        (
            Choice("Tell her about breathing through the pain.", {"Stamina": 8, "Guts": 5}),
            Choice("Show her how to lean into the corner.", {"Power": 10}),
        ),
    ),
    Event(
        "Get Well Soon",
        (
            "The trainee sneezes twice during warm-up and looks pale.",
            "Maybe pushing hard today is not the best idea.",
            "She insists she is fine, but her eyes say otherwise.",
        ),
        (
            Choice("Rest today, we will train twice as hard tomorrow.", {"Energy": 20}),
            Choice("Just a light jog, then straight to bed.", {"Speed": 5, "Energy": 5}),
        ),
    ),
    Event(
        "New Year Shrine Visit",
        (
            "Snow covers the shrine steps on the first morning of the year.",
            "You both ring the bell and make a wish for the season.",
        ),
        (
            Choice("Wish for the strength to win every race.", {"Power": 8, "Guts": 6}),
            Choice("Wish for good health all year long.", {"Energy": 25}),
            Choice("Draw a fortune slip for good luck.", {"Skill Pts": 40}),
        ),
    ),
    Event(
        "Premeditated Mischief",
        (
            "Someone has swapped all the training cones for traffic cones.",
            "Sweep giggles behind the equipment shed, pretending not to know.",
        ),
        (
            Choice("Join in and set up a secret obstacle course.", {"Guts": 8, "Mood": 1}),
            Choice("Ask her to help put everything back properly.", {"Wit": 10}),
        ),
    ),
    Event(
        "A Night Run",
        ("The track lights are still on long after practice.", "She asks for one more lap in the dark."),
        (
            Choice("One lap, then straight home.", {"Speed": 10, "Energy": -10}, 0.3,
                   {"Energy": -20, "Condition": 1}),
            Choice("Not tonight: sleep is training too.", {"Energy": 10, "Mood": -1}),
        ),
    ),
    Event(
        "Festival Spirit",
        ("Kitasan Black drags you to the shopping street's festival.", "She knows every stall owner by name."),
        (
            Choice("Let's try every stall!", {"Bond": 10, "Mood": 1, "Energy": -5}),
            Choice("Just the takoyaki, then back to training.", {"Bond": 5, "Power": 6}),
        ),
        card="Kitasan Black",
    ),
    Event(
        "Study Session",
        ("Fine Motion spreads race videos across the table.", "She has notes on every corner of every track."),
        (
            Choice("Watch the corners with her.", {"Bond": 10, "Hint": 1}),
            Choice("Quiz her on pacing.", {"Wit": 8, "Bond": 5}),
        ),
        card="Fine Motion",
    ),
    Event(
        "A Dream Spoken Aloud (1/2)",
        ("On the way back from practice she stops at the bridge.", "I want to be the best in Japan, Trainer."),
        (
            Choice("Then we'll get there together.", {"Guts": 8, "Mood": 1}),
            Choice("Then let's make a plan, step by step.", {"Wit": 8, "Skill Pts": 15}),
        ),
    ),
    Event(
        "A Dream Spoken Aloud (2/2)",
        ("Months later, she stands on the same bridge.", "Do you remember what I said here?"),
        (
            Choice("Every word. And you're closer now.", {"Speed": 10, "Stamina": 10, "Mood": 1}),
            Choice("Remember it at the finish line.", {"Guts": 12, "Hint": 2}),
        ),
        after="A Dream Spoken Aloud (1/2)",
    ),
)


# The words of the events NUMBERS §5's model makes (lluma_sim.game.flows.events.scheduled): their outcomes are the
# model's, drawn when the event comes; each choice's words say what its extra is (the choice rule reads them).
SUPPORT_PAGES = ("{card} is waiting by the track after practice.", "Trainer, I've been thinking about our training!")
OUTSIDE_PAGES = ("A student from another team stops by the track.", "She has a tip for the trainee's form.")
OUTSIDE_TITLE = "A Friend Drops By"
FAST_LEARNER_TITLE = "A Quick Study"  # UREF's "Fast Learner" event (not the skill of that name)
FAST_LEARNER = Event(FAST_LEARNER_TITLE, ("Everything the trainee tries today seems to click.",), (
    Choice("I'm learning so fast, let's keep going!",
           {**{s: numbers.FAST_LEARNER_GAIN for s in STATS}, "Mood": 2}),))
URA_EVENT = Event("The URA Finale Announced", (
    "The Director announces a new race series: the URA Finale.", "Everyone at the academy is talking about it."), (
    Choice("We'll study every race of the Finale!", dict(numbers.URA_EVENT)),))
DIRECTOR_END = Event("The Director's Thanks", (
    "The Director thanks you both for three years of hard work.", "Take this as a token of the academy's trust."), (
    Choice("Thank you, Director, for everything!", dict(numbers.DIRECTOR_END)),))
EXTRA_WORDS = {"Skill Pts": "Let's study the race videos together.", "Energy": "Take it easy and rest a while.",
               "Mood": "Let's go out and have some fun first.",
               **{s: f"Let's train your {s} a little more." for s in STATS}}


@dataclass(frozen=True)
class ShopItem:
    name: str
    effect: str  # as the row prints it
    cost: int  # shop coins
    effects: dict[str, int] = field(default_factory=dict)  # as an event choice's: stats, "Energy", "Mood"


# The career's shop (FACTS is silent on it: the real client's shop is a scenario's, e.g. Trackblazer's, with
# items bought for coins the races pay; these names are that shop's). An item is used when bought.
SHOP_ITEMS: tuple[ShopItem, ...] = (
    ShopItem("Vita 20", "Energy +20", 35, {"Energy": 20}),
    ShopItem("Plain Cupcake", "Mood +1", 30, {"Mood": 1}),
    ShopItem("Speed Notepad", "Speed +5", 25, {"Speed": 5}),
    ShopItem("Stamina Notepad", "Stamina +5", 25, {"Stamina": 5}),
    ShopItem("Vita 40", "Energy +40", 60, {"Energy": 40}),
)
START_COINS = 60  # enough for one item at the start: every career can meet a spend
RACE_COINS = (40, 25, 20, 10)  # coins a race pays by place (1st, 2nd, 3rd, lower)
