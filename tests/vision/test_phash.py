"""One definition of "the screen changed": per-region hashes see a new dialogue page or one changed number."""

from lluma_sim.game import SimGame
from lluma_vision.phash import distance, phash, short_id

THRESHOLD = 3  # DeviceConfig.settle_threshold's default


def _still(game):
    for _ in range(12):
        img = game.capture()
    return img.copy()


def _tap(game, name):
    game.tap(*next(e for e in game.truth().elements if e.name == name).box.center)


def _to_hub(game):
    _still(game)
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):  # the career setup
        _tap(game, name)
        _still(game)
    return _still(game)


def _train(game, stat):
    """The real training screen: a tap raises a tile, a tap on the raised one trains (the frame after it)."""
    for _ in range(2):
        if game.truth().screen != "training":
            break
        tile = next(e for e in game.truth().elements if e.name == stat and e.kind != "text")  # not the stat's caption
        game.tap(*tile.box.center)
        frame = _still(game)
    return frame


def test_identical_frames_are_the_same_screen_and_hashes_are_stable():
    g = SimGame(seed=0)
    a, b = _still(g), _still(g)
    assert distance(phash(a), phash(b)) == 0
    assert len(short_id(phash(a))) == 12


def test_a_new_dialogue_page_is_a_change():
    g = SimGame(seed=1)
    _to_hub(g)
    for _ in range(40):  # train until an event opens
        if g.truth().screen == "event":
            break
        _tap(g, "Training")
        _still(g)
        _train(g, "Wit")
    assert g.truth().screen == "event" and g.truth().cinematic == "dialogue"
    page1 = _still(g)
    _tap(g, "Next")
    page2 = _still(g)
    assert distance(phash(page1), phash(page2)) > THRESHOLD


def test_one_changed_stat_on_the_hub_is_a_change():
    g = SimGame(seed=2)
    before = _to_hub(g)
    stats = dict(g.truth().stats)
    _tap(g, "Training")
    _still(g)
    after = _train(g, "Wit")  # Wit at full energy: its stats move (and skill points), the same hub layout
    if g.truth().screen != "hub":  # an event came first: finish it by its first choice
        while g.truth().screen != "hub":
            names = [e.name for e in g.truth().elements if e.kind == "choice"] or ["Next"]
            _tap(g, names[0])
            after = _still(g)
    assert g.truth().stats != stats
    assert distance(phash(before), phash(after)) > THRESHOLD
