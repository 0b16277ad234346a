"""When a screen asks to spend (issue 51): the words that ask it, and the amount and the item or currency they name.

Read from the sense of a line, not from a word alone: "Use" on a settings screen ("Use high quality graphics")
gives nothing up; what makes a line a spend is what it gives up. A line asks to spend when it holds
- a verb of giving up with what it gives up: a resource verb ("spend", "consume", "deduct", "pay", "retry for")
  with an amount or a thing spent; an object verb ("use", "trade", "exchange", "buy", "drink") with a thing spent
  (an item or a currency, `Words.things`) or an amount before a named thing ("Use 1 Royal Kale Juice?");
- an arrow from more to less beside a thing spent ("Trainer Points 30 -> 0", its caption on the same row);
- a price ("$4.99", "¥480", "₩1,200", "480円").
Words OCR ran together are parted first at case and digit boundaries ("Use1AlarmClock?" -> "Use 1 Alarm Clock?"),
and a phrase glued whole ("retryfor", "AlarmClock") is its words run together. Japanese and Korean lines hold their
words unspaced or with particles attached, so their clients' words are found inside the line (`LANGUAGES`), with a
thing spent or a counted number ("1個", "50개") as what is given up.

A verb counts where it starts its sentence or follows a lowercase word: after a Title-case word it is a label's noun
("Trainee Exchange Pts", "Performance Point Cost"). Lines read: every text the screen shows, each captioned value (its
caption and value) and each button that reads as a sentence, top first (`_lines`); then a confirm's agreeing button
beside its way out (`_confirmed`). The first that asks is the screen's `spends` (`ScreenIdentity.spends`, filled by
`identify`); None when nothing is spent.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from lluma_vision.facts.story import sentence, story_lines
from lluma_vision.models import Box, Spend, VisionOutput


@dataclass(frozen=True)
class Words:
    """One client language's words. `resource`: verbs that give up whatever follows, an amount is enough; `verbs`:
    verbs that give up only a thing spent (or a counted number); `things`: the items and currencies spent;
    `numbered`: items named with their number ("Vita 20", "Toughness 30"); `counters`: words counting items after a
    number; `script`: the characters a line of the language holds (its words are then found inside the line), empty
    for a spaced language matched word by word."""

    resource: tuple[str, ...]
    verbs: tuple[str, ...]
    things: tuple[str, ...]
    numbered: tuple[str, ...] = ()
    counters: tuple[str, ...] = ()
    script: str = ""


ENGLISH = Words(
    # Global's words (FACTS: "Purchase Carats", a lost goal race's "Try Again" for an Alarm Clock; the sim's confirms:
    # "Use 1 Alarm Clock to try again?", "Exchange 100 Shop Coins for this item?", "Spend 50 Carats to recover 1 TP?")
    resource=("spend", "spends", "spent", "consume", "consumes", "consumed", "deduct", "deducts", "deducted",
              "pay", "pays", "paid", "cost", "costs", "retry for"),
    verbs=("use", "uses", "used", "trade", "trades", "traded", "exchange", "exchanges", "exchanged", "buy", "buys",
           "bought", "purchase", "purchases", "purchased", "drink", "drinks", "drank"),
    things=("carat", "carats", "jewel", "jewels", "tp", "trainer point", "trainer points", "rp", "race point",
            "race points", "alarm clock", "alarm clocks", "clock", "clocks", "shop coin", "shop coins", "coin",
            "coins", "money", "monies", "item", "items", "ticket", "tickets", "skill pt", "skill pts", "skill point",
            "skill points", "point", "points", "pt", "pts"),  # a scenario's points: "Spend performance points to
    # learn this technique?" (screens2: mrhorseshoe__29_lesson_detail_learnable.png)
    numbered=("vita", "toughness"),  # the energy drinks and TP items: "Vita 20", "Toughness 30"
)
JAPANESE = Words(
    # Where each word came from (the search tool's code and pages corpora):
    # - 使用, 使って, 回復, ジュエル, TP, アイテム, 個: a JP client's auto-trainer settings (Lua):
    #   "TP不足の場合ジュエルを使って回復するか", "アイテムは1個のみ使用してTPを回復する";
    # - 購入, 目覚まし時計, ショップコイン, サポートPt: the same file, its shop
    #   ("限定セールショップで購入するアイテム", "目覚まし時計");
    # - 消費: Kimjio/umamusume-localify, resources/korean/localized_data/static.json #480, a JP
    #   string left untranslated ("素材を消費しヒントLvを上げてもよろしいですか？");
    # - 交換: the JP word that file's Korean 교환 renders (#127, #471);
    # - 目覚まし時計 used for a continue: dic.pixiv.net/a/目覚まし時計(ウマ娘);
    # - 支払 (pay), 使う, マニー, 枚, タフネス: not found in what was read; the English table's pay, use, money,
    #   count and Toughness items in the JP client's words
    resource=("消費", "支払"),
    verbs=("使用", "使って", "使う", "交換", "購入", "回復"),
    things=("ジュエル", "目覚まし時計", "TP", "トレーナーポイント", "ショップコイン", "マニー", "RP",
            "アイテム", "サポートPt", "タフネス"),
    counters=("個", "枚"),
    script="\u3040-\u30ff\u4e00-\u9fff",  # kana and kanji
)
KOREAN = Words(
    # Kimjio/umamusume-localify, resources/korean/localized_data/static.json (the KR client's strings):
    # - 쥬얼, 사용, 개: #195 "쥬얼을 {0}개 사용하여 엔트리합니다";
    # - 소비, 머니, SP: #439 "SP와 머니를 소비하고 Lv강화를 하겠습니까?"; 장: #440 "{0}장 소비하여";
    # - RP: #157 "소비한 RP는 반환되지 않습니다"; 교환: #127; 아이템: #468;
    # - 구매, 구입 (buy), 지불 (pay): the words and the English table's, not in the strings read
    resource=("소비", "지불"),
    verbs=("사용", "교환", "구매", "구입"),
    things=("쥬얼", "머니", "TP", "RP", "SP", "아이템"),
    counters=("개", "장"),
    script="\uac00-\ud7a3",  # hangul syllables
)
LANGUAGES = (ENGLISH, JAPANESE, KOREAN)

# OCR runs words together ("Use1AlarmClock?", "Consumes30TrainerPoints."): parted where case or digits turn, a digit
# and a word of three letters or more ("50carats"; "3D", "4th", "2nd" stay whole: tests/vision/test_spends.py)
GLUED = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Z][a-z])|(?<=\d)(?=[a-z]{3})")
WORD = re.compile(r"\d[\d,]*(?:\.\d+)?(?!\w)|[^\W\d_]+|\w+")  # a number, a word, a mixed token ("3D")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# a count going down, drawn with any of the arrows games use (and OCR's reading of one: "->", ">")
FALLING = re.compile(r"(\d[\d,]*)\s*(?:->|→|⇒|➔|➡|▶|>)\s*(\d[\d,]*)")
SENTENCE_END = re.compile(r"(?<=[?!。])\s*|(?<=\.)\s+(?=[A-Z])")  # one text may hold a dialog's lines read together
CANCELS = frozenset({"cancel", "close", "no"})  # the way out beside a confirm
PRICE = re.compile(r"([$¥₩€£])\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(円|원)")


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int
    low: str  # casefolded once: the gate compares every token with every phrase

    @property
    def number(self) -> bool:
        return NUMBER.fullmatch(self.text.rstrip(",")) is not None


def unglued(text: str) -> str:
    """The line with OCR's glued words parted (NFKC first: full-width digits and signs as ASCII):
    "Use1AlarmClock?" -> "Use 1 Alarm Clock?"."""
    return GLUED.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def amount_of(number: str) -> int | float:
    """"1,500" -> 1500, "4.99" -> 4.99."""
    plain = number.replace(",", "")
    return float(plain) if "." in plain else int(plain)


def _tokens(text: str) -> list[_Token]:
    return [_Token(m.group(), m.start(), m.end(), m.group().casefold()) for m in WORD.finditer(text)]


@cache
def _by_first_word(phrases: tuple[str, ...]) -> dict[str, list[tuple[str, ...]]]:
    """`phrases` split into words, by the word a match must start with: the phrase's first word, and for a phrase of
    several words also the words glued into one ("trainerpoints"), as OCR reads them."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        said = tuple(phrase.split())
        index.setdefault(said[0], []).append(said)
        if len(said) > 1:
            index.setdefault("".join(said), []).append(("".join(said),))
    return index


def _phrase_at(tokens: list[_Token], i: int, phrases: tuple[str, ...]) -> int:
    """How many tokens from `i` the longest of `phrases` spans (0: none); a phrase glued into one token counts."""
    best = 0
    for said in _by_first_word(phrases).get(tokens[i].low, ()):
        if len(said) > best and tuple(t.low for t in tokens[i:i + len(said)]) == said:
            best = len(said)
    return best


def _things(tokens: list[_Token]) -> list[tuple[int, int]]:
    """(first token, tokens spanned) of each thing spent a spaced line names, left to right."""
    w, found, i = ENGLISH, [], 0
    while i < len(tokens):
        if n := _phrase_at(tokens, i, w.things + w.numbered):
            numbered = _phrase_at(tokens, i, w.numbered) == n
            n += int(numbered and i + n < len(tokens) and tokens[i + n].number)  # "Vita 20": the number names it
            found.append((i, n))
            i += n
        else:
            i += 1
    return found


def _english(line: str) -> Spend | None:
    """A spaced line's spend: a verb of giving up and what it gives up (see the module's docstring)."""
    tokens, w = _tokens(line), ENGLISH
    things = _things(tokens)
    for v in range(len(tokens)):
        if not (n := _phrase_at(tokens, v, w.resource + w.verbs)) or v and _titled(tokens[v - 1].text):
            continue  # a verb starts its sentence or follows a lowercase word; after a Title-case word it names
            # a thing: "Trainee Exchange Pts", "Performance Point Cost" (screens' Scout page, screens2' lesson shop)
        resource = _phrase_at(tokens, v, w.resource) == n
        after = [t for t in things if t[0] > v]
        ranked = after + [t for t in things if t[0] < v]
        counted = [t for t in ranked if t[0] > 0 and tokens[t[0] - 1].number]  # "150 Carats", before or after
        if ranked:
            first, span = (counted or ranked)[0]
            count = tokens[first - 1].text if (first, span) in counted else None
            item = line[tokens[first].start:tokens[first + span - 1].end]
            return Spend(words=line, amount=amount_of(count) if count else None, item=item)
        rest = tokens[v + n:]
        number = next((t for t in rest if t.number), None)
        if number is not None and resource:
            return Spend(words=line, amount=amount_of(number.text))
        if rest and rest[0].number and len(rest) > 1 and rest[1].text[:1].isupper():  # "Use 1 Royal Kale Juice?"
            named = _capitalised(rest[1:])
            return Spend(words=line, amount=amount_of(rest[0].text),
                         item=line[named[0].start:named[-1].end])
    return None


def _titled(word: str) -> bool:
    """A Title-case word ("Trainee", "Point"): a label's, not a sentence's "will", "to", "be" (nor an all-caps one)."""
    return len(word) > 1 and word[0].isupper() and word[1:].islower()


def _capitalised(tokens: list[_Token]) -> list[_Token]:
    """The run of capitalised words at the start of `tokens` (an item's name as the game prints it)."""
    run = []
    for t in tokens:
        if not t.text[:1].isupper():
            break
        run.append(t)
    return run


def _inside(line: str, w: Words) -> Spend | None:
    """A line of an unspaced language's spend: one of its verbs with a thing spent or a counted number in the line.
    The thing spent is the one nearest before the count or the verb (the object comes first:
    "目覚まし時計を1個使用")."""
    if not re.search(f"[{w.script}]", line):
        return None
    verb = min((line.index(v) for v in w.resource + w.verbs if v in line), default=None)
    if verb is None:
        return None
    counted = re.search(rf"(\d[\d,]*)\s*(?:{'|'.join(w.counters)})", line) if w.counters else None
    anchor = counted.start() if counted else verb
    named = sorted((line.index(t), t) for t in w.things if t in line)
    thing = max((n for n in named if n[0] < anchor), default=named[0] if named else None)
    if thing is None and counted is None:
        return None
    return Spend(words=line, amount=amount_of(counted.group(1)) if counted else None,
                 item=thing[1] if thing else None)


def _thing_named(line: str) -> str | None:
    """The first thing spent a line names, in any language (an arrow's caption)."""
    tokens = _tokens(line)
    for i, n in _things(tokens)[:1]:
        return line[tokens[i].start:tokens[i + n - 1].end]
    return next((t for w in LANGUAGES[1:] if re.search(f"[{w.script}]", line) for t in w.things if t in line), None)


def _falling(line: str, row: list[str]) -> Spend | None:
    """A count going from more to less ("30 → 0") beside a thing spent, in the line or on its row (a caption)."""
    for m in FALLING.finditer(line):
        before, after = amount_of(m.group(1)), amount_of(m.group(2))
        if before > after and (item := next(filter(None, map(_thing_named, [line, *row])), None)):
            return Spend(words=line, amount=before - after, item=item)
    return None


def _priced(line: str) -> Spend | None:
    """A price: a money sign or a yen / won word with its number ("Special Pack $4.99")."""
    m = PRICE.search(line)
    if m is None:
        return None
    sign, number = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    return Spend(words=line, amount=amount_of(number), item=sign)


def asks(line: str, row: list[str] | None = None) -> Spend | None:
    """What `line` asks to spend (None: nothing); `row`: the other lines on its row (an arrow's caption)."""
    line = unglued(line)
    return (_english(line) or next(filter(None, (_inside(line, w) for w in LANGUAGES if w.script)), None)
            or _falling(line, [unglued(r) for r in row or []]) or _priced(line))


def _lines(out: VisionOutput) -> list[tuple[str, Box]]:
    """Every line the screen shows that may ask, top first: its texts, its captioned values, and a button that reads
    as a sentence (a question read on a plate). A button of a word or two names where it leads ("Purchase Carats"
    in the real Menu panel, screens: a way to a shop, not a spend asked), a tab bar is a way elsewhere, and a story's
    text box is a story."""
    story = {(t.text, t.bounds) for t in story_lines(out)} if out.cinematic == "dialogue" else set()
    shown = [(t.text, t.bounds) for t in out.texts if (t.text, t.bounds) not in story]
    named = [(re.sub(r"#\d+$", "", b.name), b.bounds) for b in out.buttons if b.region != "menu"]
    shown += [(name, box) for name, box in named if sentence(name)]
    shown += [(f"{v.caption} {v.value}", v.bounds) for v in out.values]
    return sorted(shown, key=lambda s: (s[1].y0, s[1].x0))


def _verb_alone(label: str) -> bool:
    """A button that is a verb of giving up and nothing else: a confirm ("Use", "Exchange", "購入する", "사용")."""
    said = [t.low for t in _tokens(unglued(re.sub(r"#\d+$", "", label)))]
    return len(said) == 1 and said[0] in ENGLISH.resource + ENGLISH.verbs or any(
        re.search(f"[{w.script}]", label) and any(v in label for v in w.resource + w.verbs) for w in LANGUAGES[1:])


def _confirmed(out: VisionOutput, shown: list[tuple[str, Box]]) -> Spend | None:
    """A confirm: beside its way out (Cancel, Close, No), an agreeing button that asks to spend on its own ("Purchase
    Carats" on the sim's Daily Sale) or is a verb of giving up alone under a body naming a thing spent (the sim's
    "Recover TP": "Toughness 30 (owned: 2): +30 TP." over Cancel / Use). A way elsewhere has no way out beside it
    (the real Menu panel's "Purchase Carats", screens) and a shop's rows of "Exchange" have the screen's Back."""
    names = [re.sub(r"#\d+$", "", b.name) for b in out.buttons if b.region != "menu"]
    if not any(re.sub(r"\W+", "", n).casefold() in CANCELS for n in names):
        return None
    if (asked := next(filter(None, map(asks, names)), None)) is not None:
        return asked
    if not any(map(_verb_alone, names)):
        return None
    for text, _ in shown:
        line = unglued(text)
        if (item := _thing_named(line)) is not None:
            return Spend(words=line, item=item)
    return None


def spends(out: VisionOutput) -> Spend | None:
    """What the screen asks to spend, from the first sentence that asks (see the module's docstring; a text read
    from two lines of a dialog, "Use 1 Alarm Clock to try again? Alarm Clocks owned: 3", says it in its first), or
    from a confirm's agreeing button (`_confirmed`); None: nothing."""
    shown = _lines(out)
    for text, box in shown:
        cy = box.center[1]
        row = [other for other, b in shown if b is not box and b.y0 <= cy <= b.y1]
        for said in filter(None, SENTENCE_END.split(unicodedata.normalize("NFKC", text))):
            if (found := asks(said, row)) is not None:
                return found
    return _confirmed(out, shown)
