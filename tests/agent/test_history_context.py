import json

from lluma_agent.context.history import History, PastTurn
from lluma_agent.context.request import build_request, current_turn
from lluma_agent.model.claude import ModelReply
from lluma_facts.request import strip_cache_control


def _turn(n, screen_hash="h", thinking=False):
    reply = []
    if thinking:
        reply.append({"type": "thinking", "thinking": "hmm", "signature": "sig=="})
    reply += [
        {"type": "text", "text": f"turn {n}"},
        {"type": "tool_use", "id": f"toolu_{n}", "name": "pressButton", "input": {"name": "Rest"}},
    ]
    results = []
    if n > 1:
        results = [{"type": "tool_result", "tool_use_id": f"toolu_{n - 1}", "content": "tapped; changed"}]
    return PastTurn(turn=n, results=results, screen=f"hub {n}", screen_hash=screen_hash, reply=reply)


def _request(history):
    return build_request(
        model="claude-haiku-4-5", max_tokens=512, tools=[{"name": "t", "description": "d", "input_schema": {}}],
        system_prompt="SYSTEM", memory_text="<memory></memory>", history=history.messages(),
        current=current_turn([], '{"buttons":[]}', [], None),
    )


def test_breakpoints_after_system_memory_and_on_last_assistant_block():
    h = History(40, 20)
    for n in range(1, 4):
        h.append(_turn(n, thinking=(n == 3)))
    req, layout = _request(h)
    marks = json.dumps(req).count("cache_control")
    assert marks == 3
    assert all("cache_control" in b for b in req["system"])
    last_assistant = req["messages"][-2]
    assert last_assistant["role"] == "assistant"
    assert "cache_control" in last_assistant["content"][-1]
    assert all("cache_control" not in b for b in last_assistant["content"] if b["type"] == "thinking")
    assert "cache_control" not in json.dumps(req["messages"][-1])  # the current turn is never cached
    assert [s.name for s in layout.sections] == ["tools", "system", "memory", "history", "current"]


def test_request_n_shares_its_prefix_with_request_n_plus_1():
    h = History(40, 20)
    for n in range(1, 6):
        h.append(_turn(n))
    before, _ = _request(h)
    h.append(_turn(6))
    after, _ = _request(h)
    n_hist = len(before["messages"]) - 1
    assert strip_cache_control(after["messages"][:n_hist]) == strip_cache_control(before["messages"][:n_hist])
    assert after["system"] == before["system"] and after["tools"] == before["tools"]


def test_roles_alternate_and_tool_results_follow_their_tool_use():
    h = History(40, 20)
    for n in range(1, 5):
        h.append(_turn(n))
    msgs = h.messages()
    assert [m["role"] for m in msgs] == ["user", "assistant"] * 4
    for i in range(2, len(msgs), 2):
        ids = {b["id"] for b in msgs[i - 1]["content"] if b["type"] == "tool_use"}
        got = {b["tool_use_id"] for b in msgs[i]["content"] if b["type"] == "tool_result"}
        assert got == ids and msgs[i]["content"][0]["type"] == "tool_result"


def test_fold_in_chunks_with_summary_and_orphan_results_become_text():
    h = History(max_turns=6, chunk=4)
    seen = []

    def summarize(messages):
        seen.append(messages)
        return ModelReply(content=[], text="summary of turns 1-4")

    for n in range(1, 8):
        h.append(_turn(n))
    assert h.needs_fold()
    folded = h.fold(summarize)
    assert folded.how == "model" and folded.reply is not None and folded.reply.text == "summary of turns 1-4"
    assert [t.turn for t in h.turns] == [5, 6, 7]
    msgs = h.messages()
    first = msgs[0]["content"]
    assert "summary of turns 1-4" in first[0]["text"]
    assert all(b["type"] == "text" for b in first)  # toolu_4 was folded away
    # the summary request itself answers the chunk's last tool_use before asking
    last_user = seen[0][-1]["content"]
    assert last_user[0] == {"type": "tool_result", "tool_use_id": "toolu_4", "content": "tapped; changed"}
    assert last_user[-1]["text"].startswith("<summarize>")


def test_fold_falls_back_to_a_deterministic_digest():
    h = History(max_turns=3, chunk=2)
    for n in range(1, 5):
        h.append(_turn(n))

    def broken(messages):
        raise RuntimeError("529 overloaded")

    folded = h.fold(broken)
    how = folded.how
    assert folded.reply is None  # no call was made, none is billed
    assert how.startswith("digest") and "529" in how
    assert "T1 hub 1 -> pressButton(Rest)" in h.summary


def test_identical_screen_is_referenced_not_repeated():
    h = History(40, 20)
    assert h.screen_line(1, "abc", "hub: Rest, Training") == "hub: Rest, Training"
    h.append(_turn(1, "abc"))
    assert h.screen_line(2, "abc", "hub: Rest, Training") == "same screen as T1"
    assert h.screen_line(3, "def", "training: Speed") == "training: Speed"


def test_compact_reply_shortens_ids_and_trims_text_but_never_touches_thinking():
    from lluma_agent.context.history import compact_reply

    long_text = "I think " * 60
    reply = [
        {"type": "text", "text": long_text, "citations": None},
        {"type": "tool_use", "id": "toolu_01KxJsllLODfU25035HyRrY0", "name": "pressButton", "input": {"name": "OK"}},
        {"type": "tool_use", "id": "toolu_01Zz", "name": "writeMemoryFile", "input": {"name": "a.md", "content": "x"}},
    ]
    blocks, ids = compact_reply(reply, 41)
    assert ids == {"toolu_01KxJsllLODfU25035HyRrY0": "t41", "toolu_01Zz": "t41b"}
    assert [b.get("id") for b in blocks] == [None, "t41", "t41b"]
    assert len(blocks[0]["text"]) <= 160 and "citations" not in blocks[0]
    with_thinking = [{"type": "thinking", "thinking": "hmm", "signature": "sig"}] + reply
    kept, ids2 = compact_reply(with_thinking, 42)
    assert ids2 == {} and kept[1]["text"] == long_text and kept[2]["id"] == "toolu_01KxJsllLODfU25035HyRrY0"


def _thinking_turn(n, epoch=0):
    t = _turn(n, thinking=True)
    sent = [*t.results, {"type": "text", "text": f"<vision>full reading {n}</vision>"}]
    return t.model_copy(update={"sent": sent, "epoch": epoch})


def test_a_turn_whose_reply_holds_thinking_is_kept_exactly_as_sent():
    h = History(40, 20)
    h.append(_turn(1))
    h.append(_thinking_turn(2))
    msgs = h.messages()
    assert msgs[2]["content"] == h.turns[1].sent  # the full reading it was bound to, not the compact record
    assert msgs[3]["content"][0]["type"] == "thinking"
    assert msgs[0]["content"][-1]["text"] == "T1 hub 1"  # no thinking: compact record


def test_a_fold_turns_kept_turns_into_text_and_refreshes_the_memory_snapshot():
    h = History(max_turns=4, chunk=2)
    h.memory = "<memory>old</memory>"
    for n in range(1, 6):
        h.append(_thinking_turn(n))
    before = h.messages()
    seen = []
    summarize = lambda msgs: seen.append(msgs) or ModelReply(content=[], text="sum")  # noqa: E731
    assert h.fold(summarize, memory="<memory>new</memory>").how == "model"
    # The summary request carries the chunk exactly as the last request did (its thinking stays bound).
    assert seen[0][:4] == before[:4]
    assert seen[0][-1]["content"][0]["type"] == "tool_result"
    assert h.memory == "<memory>new</memory>"
    msgs = h.messages()
    assert [t.turn for t in h.turns] == [3, 4, 5]
    kinds = {b["type"] for m in msgs for b in m["content"]}
    assert kinds == {"text"}  # kept turns: no thinking (bound to a prefix the fold changed), no tool blocks
    assert "-> pressButton(name='Rest')" in msgs[1]["content"][0]["text"]
    assert h.results_as_text()  # the next turn answers a reply that is text now
    h.append(_turn(6).model_copy(update={"epoch": h.folds, "results_as_text": True}))
    assert h.messages()[:6] == msgs  # append-only again after the fold
    assert h.messages()[6]["content"][0]["text"].startswith("earlier results: tapped; changed")


def test_the_turn_before_a_fold_asks_for_the_summary_and_the_fold_takes_it_without_a_call():
    h = History(max_turns=4, chunk=2)
    for n in range(1, 4):
        h.append(_turn(n))
    assert h.fold_ask() is None  # the turn being decided leaves 4 turns: no fold next turn
    h.append(_turn(4))
    ask = h.fold_ask()
    assert ask is not None and "turns T1-T2" in ask and "<summary>" in ask
    h.offer("<summary>too early</summary>")  # not asked: no fold follows the turn just appended
    assert h.offered == ""
    h.append(_turn(5))
    assert h.needs_fold()
    h.offer("<summary>hub loop; rest below 40%</summary>\nPressing Training.")
    saved = h.saved()  # a resume between the ask and the fold keeps the offered summary
    again = History(max_turns=4, chunk=2)
    again.restore(saved)

    def no_call(msgs):
        raise AssertionError("the offered summary needs no call")

    folded = again.fold(no_call)
    assert folded.how == "reply" and folded.reply is None
    assert again.summary == "hub loop; rest below 40%" and [t.turn for t in again.turns] == [3, 4, 5]
    assert again.offered == ""  # used once
    # the next ask covers the summary too
    again.append(_turn(6))
    ask = again.fold_ask()
    assert ask is not None and "the summary of earlier turns and turns T3-T4" in ask


def test_a_reply_without_a_summary_leaves_the_fold_to_its_call():
    h = History(max_turns=2, chunk=1)
    for n in range(1, 4):
        h.append(_turn(n))
    h.offer("Pressing Training.")
    assert h.fold(lambda msgs: ModelReply(content=[], text="from the call")).how == "model"
    assert h.summary == "from the call"


def test_dropping_refused_thinking_renders_every_kept_turn_as_text_and_summarises_nothing():
    h = History(40, 20)
    for n in range(1, 4):
        h.append(_turn(n, thinking=True))
    assert "thinking" in json.dumps(h.messages()) and not h.results_as_text()
    assert h.drop_thinking()
    msgs = h.messages()
    assert "thinking" not in json.dumps(msgs) and "tool_use" not in json.dumps(msgs) and "tool_result" not in (
        json.dumps(msgs))
    assert len(msgs) == 6 and h.summary == "" and [t.turn for t in h.turns] == [1, 2, 3]  # nothing folded away
    assert h.results_as_text()  # the next turn's results answer a reply now kept as text
    assert not h.drop_thinking()  # nothing left to drop: the caller does not ask again
