"""The agent's memory files: plain .md/.yaml/.txt files in one folder that people may edit at any time.

Names are confined to the folder, writes are atomic, a write over the token budget is refused and
changes nothing, `.yaml` must parse. Files are re-read every turn; edits made outside the agent's own
tools are reported so the model can be told.

Between runs the folder remembers how it was left (`.lluma-memory.json`: each file's text, who changed it
last and the lines a person wrote), so a run starts by reporting what a person changed since (the first
turn's NOTE and diffs). A person's lines stay until a person removes them: an agent write that leaves them
out keeps them where they stood (`kept_person_lines`, told to the model), and an agent delete of a file that
holds them is refused. A `.yaml` a person wrote that does not parse is shown to the model with the problem,
never hidden.

The block the model reads never holds more than the budget (`memory.budget_tokens`, estimated): files a
person made too big are shown cut, in name order, with a note at the cut saying so; `warnings()` says the
same for the live output and `lluma doctor`. A file whose name is not UTF-8 is skipped with a note; one whose text
is not is shown with replacement characters and named (its encoding), as a FIFO or a device is never read
(lluma_agent/safeload.py).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel

from lluma_agent import safeload, yamlsafe
from lluma_agent.atomic import atomic_write_text, remove_stale_temps
from lluma_agent.context.request import file_element
from lluma_agent.context.tokens import cut_to_tokens, estimate_text_tokens, estimate_upto
from lluma_agent.interrupts import no_interrupt

ALLOWED_SUFFIXES = (".md", ".yaml", ".yml", ".txt")
# The estimator counts about 4 bytes a token; reading more than this many bytes per budget token cannot
# fit the budget anyway, so a huge file (a log pasted by mistake) is read only this far and marked cut.
_BYTES_PER_BUDGET_TOKEN = 8
# The folder's README is for people (what the folder is, how to edit, the budget): never sent to the
# model, never writable by it.
RESERVED_NAMES = frozenset({"readme.md"})
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
STATE_FILE = ".lluma-memory.json"  # how the folder was left: {"files": {name: {"content", "by", "person"}}}
Author = Literal["agent", "person"]


class MemoryError_(ValueError):
    """A memory operation that was refused; nothing on disk changed. The message is shown to the model."""


class MemoryChange(BaseModel):
    name: str
    op: Literal["create", "write", "delete", "external"]
    by: Literal["agent", "person"]
    diff: str
    tokens_after: int
    # An agent write that left out lines a person wrote: they were kept where they stood (the model is told).
    kept_person_lines: list[str] = []
    # Turn logs written before a person's lines were kept (the write went through without them): read, never set.
    dropped_person_lines: list[str] = []

    def person_note(self) -> str:
        """For the tool result: the person's lines this write kept although its content left them out."""
        if not self.kept_person_lines:
            return ""
        return (f" NOTE: {len(self.kept_person_lines)} line(s) a person wrote in {self.name} were not in your content; "
                f"they were kept where they stood: {lines_shown(self.kept_person_lines)}. A person's lines stay until "
                "a person removes them: write around them.")


class MemoryFile(BaseModel):
    name: str
    content: str
    tokens: int
    problem: str = ""  # what is wrong with its encoding: not UTF-8, shown with replacement characters
    shown: str | None = None  # what the model is shown when the budget cuts it (None: all of `content`)
    shown_tokens: int = 0  # its estimate

    @property
    def visible(self) -> str:
        return self.content if self.shown is None else self.shown


def lines_shown(lines: list[str], most: int = 12) -> str:
    """Lines for a one-line message: "a | b | c (+3 more)"."""
    more = len(lines) - most
    return " | ".join(lines[:most]) + (f" (+{more} more)" if more > 0 else "")


SKIPPED = "{}: skipped, its name is not UTF-8; rename it"
NOT_UTF8 = "{}: {} (shown with replacement characters)"
NOTE_RESERVE = 60  # about a cut file's note, in estimated tokens


def cut_note(f: MemoryFile, budget: int) -> str:
    return (f"\n[memory budget: {f.name} is cut here, ~{f.shown_tokens:,} of ~{f.tokens:,} "
            f"tokens shown; all memory files may hold {budget:,} tokens (memory.budget_tokens). Shorten or delete "
            "files to see the rest]")


def render_block(files: list[MemoryFile], skipped: list[str], budget: int) -> str:
    """The memory block: every file as an escaped element (cut ones with their note), then skipped names."""
    if not files and not skipped:
        return "<memory>\n(no memory files yet)\n</memory>"
    if files and all(f.shown == "" for f in files) and budget < NOTE_RESERVE * len(files):
        return (f"<memory>\n[memory budget: {len(files)} files hold more than memory.budget_tokens ({budget:,}); "
                "none is shown]\n</memory>")
    parts = []
    for f in files:
        attrs = {"problem": p} if (p := f.problem or yaml_problem(f.name, f.content)) else {}
        parts.append(file_element(f.name, f.visible + (cut_note(f, budget) if f.shown is not None else ""), **attrs))
    parts += [f"[skipped {n}: its name is not UTF-8; rename it]" for n in skipped]
    return "<memory>\n" + "\n".join(parts) + "\n</memory>"


def fit_budget(files: list[MemoryFile], skipped: list[str], budget: int, factor: float = 1.0) -> list[str]:
    """Cut what the model is shown (`MemoryFile.shown`) so the whole block stays within `budget` estimated
    tokens: files in name order keep all they hold while the budget lasts; the one that meets the end is cut
    there, those after it are shown empty, each with its note. Returns one warning per cut file. `factor`: the
    model's tokens per estimated token (a newer tokenizer counts the same text as more), so the block fits the
    budget as the request's own estimate counts it."""
    limit = int(budget / factor)
    for f in files:
        f.shown = None
    skeleton = estimate_text_tokens(render_block([f.model_copy(update={"shown": ""}) for f in files], skipped, budget))
    if skeleton > limit:  # too many files for the budget even empty: one line says so, nothing is shown
        for f in files:
            f.shown, f.shown_tokens = "", 0
        return [f"memory.budget_tokens ({budget:,}) cannot hold even the names of {len(files)} memory files: "
                "none is shown"]
    if skeleton + sum(f.tokens for f in files) <= limit and estimate_text_tokens(
            render_block(files, skipped, budget)) <= limit:  # rendered only when it may fit (a big file is slow)
        return []
    left = limit - skeleton  # the skeleton holds every file's note: files kept whole give theirs back
    for f in files:
        if 0 < f.tokens <= left:
            left -= f.tokens
        else:
            f.shown, f.shown_tokens = cut_to_tokens(f.content, max(0, left))
            left = 0
    for _ in range(8):  # the estimate is not exactly additive over a cut: trim the last cut until it fits
        over = estimate_text_tokens(render_block(files, skipped, budget)) - limit
        last = next((f for f in reversed(files) if f.shown), None)
        if over <= 0 or last is None:
            break
        last.shown, last.shown_tokens = cut_to_tokens(last.visible, max(0, last.shown_tokens - over - 16))
    return [f"{f.name} is shown cut (~{f.shown_tokens:,} of ~{f.tokens:,} tokens): the memory files hold more "
            f"than memory.budget_tokens ({budget:,})" for f in files if f.shown is not None]


def utf8_name(name: str) -> bool:
    """A file name the block, the logs and the state file can hold (os.listdir keeps bad bytes as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """A name that is not UTF-8, readable: its bad bytes as \\xff."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=64)  # the block is rendered every turn a file is cut; a big file parses once
def yaml_problem(name: str, text: str) -> str | None:
    """Why a .yaml/.yml file does not parse, on one line; None when it does (or is not YAML)."""
    if not name.lower().endswith((".yaml", ".yml")):
        return None
    try:
        yamlsafe.load(text)
    except (yaml.YAMLError, ValueError) as exc:
        return f"not valid YAML: {yamlsafe.problem(exc)}"
    return None


def persons_after(persons: list[str], before: str, after: str) -> list[str]:
    """A person's lines once a person turned `before` into `after`: those they wrote and kept, and every line they
    added (non-blank), in the file's order."""
    mine, had, out = set(persons), set(before.splitlines()), []
    for line in after.splitlines():
        if line.strip() and (line in mine or line not in had) and line not in out:
            out.append(line)
    return out


def with_lines_kept(old: str, new: str, keep: list[str]) -> str:
    """`new` with the lines of `keep` (lines of `old` it left out) put back where they stood: after the new lines
    that took the place of the part of `old` they were in."""
    a, b, want, out = old.splitlines(), new.splitlines(), set(keep), []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        out += b[j1:j2]
        if tag in ("delete", "replace"):
            out += [line for line in a[i1:i2] if line in want and line not in out]
    out += [line for line in keep if line not in out]
    text = "\n".join(out)
    return text + "\n" if text and (new.endswith("\n") or not new) else text


def _diff(name: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}", n=1
    )
    return "".join(lines)


def write_state(folder: Path, files: dict[str, dict[str, str]]) -> None:
    """Record `files` as how a run left `folder`: the next MemoryStore there reports every difference."""
    if not files and not (folder / STATE_FILE).exists():
        return  # nothing to remember: an unused folder stays untouched
    try:
        with no_interrupt():
            atomic_write_text(folder / STATE_FILE, json.dumps({"files": files}, ensure_ascii=False))
    except OSError:
        pass  # a read-only folder still works; the next run just cannot tell who changed what


def max_file_bytes(budget_tokens: int) -> int:
    return max(4096, budget_tokens * _BYTES_PER_BUDGET_TOKEN)


def read_capped(path: Path, limit: int) -> tuple[str, str]:
    """A file's text, capped at `limit` bytes, and what is wrong with its encoding ("" when none: a file that is
    not UTF-8 is shown with replacement characters and named); a FIFO or a device is refused at once (OSError)."""
    text, problem, cut = safeload.read_shown(path, limit)
    if cut:
        text += f"\n[... file cut at {limit} bytes: larger than the memory budget allows]"
    return text, problem


def scan(folder: Path) -> tuple[list[Path], list[str]]:
    """The memory files in `folder`, by name, and the names skipped because they are not UTF-8 (readable)."""
    paths, skipped = [], []
    for path in sorted(folder.iterdir()):
        if path.is_symlink() or not path.is_file() or path.name.startswith("."):
            continue
        if not path.name.lower().endswith(ALLOWED_SUFFIXES) or path.name.lower() in RESERVED_NAMES:
            continue
        if utf8_name(path.name):
            paths.append(path)
        else:
            skipped.append(shown_name(path.name))
    return paths, skipped


def budget_warnings(folder: Path, budget: int, factor: float = 1.0) -> list[str]:
    """What a run would warn about this folder (cut files, skipped names), without changing anything in it."""
    paths, skipped = scan(folder)
    files: list[MemoryFile] = []
    for path in paths:
        try:
            text, problem = read_capped(path, max_file_bytes(budget))
        except OSError:
            continue
        files.append(MemoryFile(name=path.name, content=text, problem=problem,
                                tokens=estimate_upto(text, budget - sum(f.tokens for f in files) + 1)))
    return [*fit_budget(files, skipped, budget, factor), *(SKIPPED.format(n) for n in skipped), *encodings(files)]


def encodings(files: list[MemoryFile]) -> list[str]:
    """A line for each file that is not UTF-8, naming it and its encoding."""
    return [NOT_UTF8.format(f.name, f.problem) for f in sorted(files, key=lambda f: f.name) if f.problem]


class MemoryStore:
    def __init__(self, folder: Path, budget_tokens: int = 32000, token_factor: float = 1.0) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.root = self.folder.resolve()
        self.budget_tokens = budget_tokens
        self.token_factor = token_factor  # the model's tokens per estimated token (fit_budget)
        self.max_file_bytes = max_file_bytes(budget_tokens)
        remove_stale_temps(self.folder)
        self._known: dict[str, str] = {}  # name -> digest as last seen or written by us
        self._files: dict[str, MemoryFile] = {}
        self._tokens: dict[str, int] = {}  # digest -> estimate (a big file is read every turn, counted once)
        self._fit_key: tuple[object, ...] = ()
        self.skipped: list[str] = []  # names that are not UTF-8 (shown readable), left out with a note
        self.cut: list[str] = []  # one warning per file the budget cuts
        self.encodings: list[str] = []  # one warning per file that is not UTF-8
        self.on_warning: Callable[[str], None] | None = None  # told when the cut, skipped or not-UTF-8 files change
        self.last_by: dict[str, Author] = {}  # who changed each file last
        # The lines a person wrote in each file: kept by every agent write until a person removes them.
        self.persons: dict[str, list[str]] = {}
        self._loaded = False
        left = self._load_state()
        self.refresh()
        # What a person changed since the last run left the folder: reported by the first refresh() call.
        self.found = self._since(left) if left is not None else []
        for name, f in self._files.items():  # a file no run of ours left this way was written by a person
            if self.last_by.setdefault(name, "person") == "person" and name not in self.persons:
                self.persons[name] = persons_after([], "", f.content)
        self._undelivered = list(self.found)

    # ---- names ---------------------------------------------------------------------------------
    def _path(self, name: str) -> Path:
        """Validate a file name given by the model; refuse anything that could leave the folder."""
        if not isinstance(name, str) or not name:
            raise MemoryError_("file name must be a non-empty string")
        if "/" in name or "\\" in name or name in (".", "..") or ".." in name or "\x00" in name:
            raise MemoryError_(f"invalid file name {name!r}: no path separators or '..'; use a plain name")
        if not _NAME_RE.match(name):
            raise MemoryError_(f"invalid file name {name!r}: letters, digits, '_', '-', '.' only (max 80)")
        if not name.lower().endswith(ALLOWED_SUFFIXES):
            raise MemoryError_(f"invalid file name {name!r}: must end with {', '.join(ALLOWED_SUFFIXES)}")
        if name.lower() in RESERVED_NAMES:
            raise MemoryError_(f"{name!r} is reserved for the people who read this folder; choose another name")
        path = self.folder / name
        if path.is_symlink():
            raise MemoryError_(f"{name!r} is a symlink; memory files must be plain files inside the folder")
        if path.resolve().parent != self.root:
            raise MemoryError_(f"{name!r} resolves outside the memory folder")
        if path.exists() and not path.is_file():
            raise MemoryError_(f"{name!r} exists but is not a regular file (a folder?); choose another name")
        return path

    def _read(self, path: Path) -> tuple[str, str]:
        return read_capped(path, self.max_file_bytes)

    # ---- between runs --------------------------------------------------------------------------
    def _load_state(self) -> dict[str, dict[str, str | None]] | None:
        try:
            data = safeload.read_json(self.folder / STATE_FILE)  # a FIFO, a bomb or a deep nest: refused at once
            files = data["files"]
            return {n: {"content": str(f["content"]), "by": str(f.get("by", "agent")), "person": f.get("person")}
                    for n, f in files.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # never used by a run, or unreadable: nothing to compare with

    def _since(self, left: dict[str, dict[str, str | None]]) -> list[MemoryChange]:
        """The folder now against how the last run left it; every difference is a person's edit."""
        changes = []
        for name in sorted(set(left) | set(self._files)):
            before = str(left[name]["content"]) if name in left else ""
            now = self._files.get(name)
            kept = left.get(name, {}).get("person")
            # A state written before a person's lines were kept says only who changed the file last.
            persons = kept.splitlines() if kept is not None else persons_after(
                [], "", before if name in left and left[name]["by"] == "person" else "")
            if now is not None:
                self.persons[name] = persons_after(persons, before, now.content)
            if now is not None and name in left and _digest(now.content) == _digest(before):
                self.last_by[name] = "person" if left[name]["by"] == "person" else "agent"
                self.persons[name] = persons
                continue
            changes.append(MemoryChange(name=name, op="external" if now is not None else "delete", by="person",
                                        diff=_diff(name, before, now.content if now else ""),
                                        tokens_after=now.tokens if now else 0))
        return changes

    def save_state(self) -> None:
        """Remember how this run leaves the folder (at every change, and when the run ends)."""
        self._save_state()

    def _save_state(self) -> None:
        write_state(self.folder, self.state())

    def state(self) -> dict[str, dict[str, str]]:
        """How the folder is as far as we know: each file's text, who changed it last and the lines a person wrote
        (the state file; a resume's checkpoint holds the same)."""
        return {n: {"content": f.content, "by": self.last_by.get(n, "person"),
                    **({"person": "\n".join(p)} if (p := self.persons.get(n)) else {})}
                for n, f in self._files.items()}

    def fingerprint(self) -> dict[str, str]:
        """sha256 of each file as it is now (recorded at run start)."""
        return {f.name: _digest(f.content) for f in self.files}

    def problems(self) -> dict[str, str]:
        """Files that cannot be what they claim to be: not UTF-8, a .yaml that does not parse."""
        return {f.name: p for f in self.files if (p := f.problem or yaml_problem(f.name, f.content))}

    # ---- reading -------------------------------------------------------------------------------
    def refresh(self) -> list[MemoryChange]:
        """Re-read the folder. Returns the changes a person made since we last looked (the first call after
        start-up also returns what a person changed since the last run)."""
        before = {n: f.content for n, f in self._files.items()}
        changes = self._refresh()
        for c in changes:
            self.last_by[c.name] = "person"
            if c.name in self._files:
                self.persons[c.name] = persons_after(self.persons.get(c.name, []), before.get(c.name, ""),
                                                     self._files[c.name].content)
            else:
                self.persons.pop(c.name, None)
        pending, self._undelivered = getattr(self, "_undelivered", []), []
        if changes or pending:
            self._save_state()
        return pending + changes

    def _refresh(self) -> list[MemoryChange]:
        current: dict[str, MemoryFile] = {}
        paths, skipped = scan(self.folder)
        for path in paths:
            try:
                # A file that is not UTF-8 is still shown (with replacement characters), never dropped, and named.
                text, problem = self._read(path)
            except OSError:
                continue
            # Counted exactly while the budget lasts (in name order, as the block shows them); past it, estimated.
            spent = sum(f.tokens for f in current.values())
            current[path.name] = MemoryFile(name=path.name, content=text, problem=problem,
                                            tokens=self._estimate(text, self.budget_tokens - spent))
        digests = {n: _digest(f.content) for n, f in current.items()}
        self._tokens = {digests[n]: f.tokens for n, f in current.items()}
        key = (tuple(sorted(digests.items())), tuple(skipped))
        if key == self._fit_key:  # the same files as last time: the same cuts (fitting a big folder takes a while)
            for f in current.values():
                f.shown, f.shown_tokens = self._files[f.name].shown, self._files[f.name].shown_tokens
            cut = self.cut
        else:
            cut = fit_budget([current[n] for n in sorted(current)], skipped, self.budget_tokens, self.token_factor)
            self._fit_key = key
        odd = encodings(list(current.values()))
        if self.on_warning and (cut, skipped, odd) != (self.cut, self.skipped, self.encodings):
            for line in [*cut, *(SKIPPED.format(n) for n in skipped), *odd]:
                self.on_warning(line)
        self.cut, self.skipped, self.encodings = cut, skipped, odd
        changes: list[MemoryChange] = []
        if self._loaded:
            for name in sorted(set(current) | set(self._known)):
                new = current.get(name)
                old_digest = self._known.get(name)
                if new is not None and old_digest == _digest(new.content):
                    continue
                old_text = self._files[name].content if name in self._files else ""
                changes.append(
                    MemoryChange(
                        name=name,
                        op="external" if new is not None else "delete",
                        by="person",
                        diff=_diff(name, old_text, new.content if new else ""),
                        tokens_after=new.tokens if new else 0,
                    )
                )
        self._files = current
        self._known = digests
        self._loaded = True
        return changes

    @property
    def files(self) -> list[MemoryFile]:
        return [self._files[n] for n in sorted(self._files)]

    def _estimate(self, text: str, left: int) -> int:
        known = self._tokens.get(_digest(text))
        return known if known is not None else estimate_upto(text, max(0, left) + 1)

    def warnings(self) -> list[str]:
        """Files the model is not shown whole or as written: cut by the budget, skipped for their name, not UTF-8."""
        return [*self.cut, *(SKIPPED.format(n) for n in self.skipped), *self.encodings]

    def shown(self) -> dict[str, str]:
        """Each file as the model is shown it (cut by the budget where it must be)."""
        return {f.name: f.visible for f in self.files}

    def total_tokens(self) -> int:
        return sum(f.tokens for f in self._files.values())

    def block_text(self) -> str:
        """All files as one deterministic block (sorted by name) for the context."""
        # A person's broken YAML is shown as it is, with what is wrong; never more than the budget.
        return render_block(self.files, self.skipped, self.budget_tokens)

    # ---- changing ------------------------------------------------------------------------------
    def _check_content(self, name: str, content: str, replacing: int) -> int:
        if not isinstance(content, str):
            raise MemoryError_("content must be a string")
        try:
            content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise MemoryError_(
                f"{name}: content holds a character that is not valid UTF-8 (position {exc.start}); nothing was written"
            ) from None
        if name.lower().endswith((".yaml", ".yml")):
            if problem := yaml_problem(name, content):
                raise MemoryError_(f"{name}: content is {problem}; nothing was written")
        tokens = estimate_text_tokens(content)
        after = math.ceil((self.total_tokens() - replacing + tokens) * self.token_factor)
        if after > self.budget_tokens:
            raise MemoryError_(
                f"{name}: write refused, memory would hold ~{after} tokens, over the budget of "
                f"{self.budget_tokens}; shorten or delete files first"
            )
        return tokens

    def _unchanged_on_disk(self, name: str, path: Path) -> None:
        """Refuse to overwrite an edit a person made after the model last saw the file."""
        on_disk = self._read(path)[0] if path.exists() else None
        if (on_disk is None and name in self._known) or (
            on_disk is not None and self._known.get(name) != _digest(on_disk)
        ):
            raise MemoryError_(
                f"{name} was changed by a person since you last saw it; nothing was written. "
                "Read the new version next turn, then write again."
            )

    def _commit(self, name: str, op: Literal["create", "write"], content: str) -> MemoryChange:
        path = self._path(name)
        old = self._files[name].content if name in self._files else ""
        self._unchanged_on_disk(name, path)
        have = set(content.splitlines())
        kept = [line for line in self.persons.get(name, []) if line not in have]
        if kept:  # a person's lines stay: put back where they stood, and the whole checked as any write is
            content = with_lines_kept(old, content, kept)
        try:
            tokens = self._check_content(name, content, self._files[name].tokens if name in self._files else 0)
        except MemoryError_ as exc:
            if not kept:
                raise
            raise MemoryError_(f"{exc} (with the {len(kept)} line(s) a person wrote put back, which a write keeps: "
                               f"{lines_shown(kept)})") from None
        try:
            with no_interrupt():
                atomic_write_text(path, content)
        except (OSError, ValueError) as exc:
            raise MemoryError_(f"{name}: could not be written ({exc}); nothing changed") from None
        self._files[name] = MemoryFile(name=name, content=content, tokens=tokens)
        self._known[name] = _digest(content)
        self.last_by[name] = "agent"
        self._save_state()
        return MemoryChange(name=name, op=op, by="agent", diff=_diff(name, old, content), tokens_after=tokens,
                            kept_person_lines=kept)

    def create(self, name: str, content: str) -> MemoryChange:
        path = self._path(name)
        if name in self._files or path.exists():
            raise MemoryError_(f"{name} already exists; use writeMemoryFile to replace it")
        return self._commit(name, "create", content)

    def write(self, name: str, content: str) -> MemoryChange:
        self._path(name)
        return self._commit(name, "write" if name in self._files else "create", content)

    def delete(self, name: str) -> MemoryChange:
        path = self._path(name)
        if name not in self._files:
            raise MemoryError_(f"{name} does not exist; files: {', '.join(sorted(self._files)) or '(none)'}")
        if persons := self.persons.get(name):
            raise MemoryError_(f"{name} holds {len(persons)} line(s) a person wrote ({lines_shown(persons)}); a "
                               "person's lines stay until a person removes them, so nothing was deleted. Rewrite "
                               "the rest with writeMemoryFile (their lines are kept), or leave the file")
        self._unchanged_on_disk(name, path)
        try:
            with no_interrupt():
                path.unlink(missing_ok=True)
        except OSError as exc:
            raise MemoryError_(f"{name}: could not be deleted ({exc}); nothing changed") from None
        # Forget the file only once it is really gone, so the store never disagrees with the disk.
        old = self._files.pop(name).content
        self._known.pop(name, None)
        self.last_by.pop(name, None)
        self._save_state()
        return MemoryChange(name=name, op="delete", by="agent", diff=_diff(name, old, ""), tokens_after=0)
