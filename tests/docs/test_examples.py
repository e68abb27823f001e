"""Every code block of the README and of `docs/` runs, and shown output matches what it prints.

The rules (also in docs/development.md):

- Each Markdown file's blocks run in order, in a fresh folder holding a copy of `examples/`;
  pages under `docs/` also find `judges/faithfulness.json` there (the README's quick start
  makes it; a page may assume the reader did that).
- ```` ```python ```` blocks of one file run in one interpreter, in order, sharing their
  names. A ```` ```text ```` block right after a python block is the output it prints,
  compared line by line as a console block's output is, except that its numbers must be the
  ones printed: a Python example is seeded and prints no timings, so a stale figure fails.
- ```` ```bash ```` blocks run line by line (a line ending in `\\` continues); `pip`, `git`,
  `cd` and `export` lines are setup, not run (the checkout under test is installed already);
  every other command must be `ragjudge`, `python`, `pytest` or `mkdocs`, and must exit 0.
- ```` ```console ```` blocks: `$ ` lines are commands as above, the lines after each are
  what it prints, compared line by line with numbers and hex digests masked (so a changed
  figure passes, a changed line does not). A shown line `...` stands for any number of lines;
  a shown line ending in `...` matches any line that starts with the rest.
- ```` ```json ```` blocks must parse.
- A block preceded by `<!-- no-test: REASON -->` is not run (it needs an LM, a key, a
  cluster, ...). A block preceded by `<!-- file: PATH -->` is written to PATH (for a later
  block to use) instead of being run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN_LANGS = {"python", "bash", "console"}
SETUP = {"pip", "git", "cd", "export"}
COMMANDS = {"ragjudge", "python", "pytest", "mkdocs"}
TIMEOUT = 600
TEST_COMMAND = 'pip install -e ".[dev]" && python -m pytest -q -n 2 tests'

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*(?P<kind>no-test|file):\s*(?P<value>.*?)\s*-->\s*$")
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b")
_NUM = re.compile(r"[-+]?\d+(?:[.,]\d+)*%?")


@dataclass
class Block:
    """One fenced code block of a Markdown file.

    Attributes:
        path: the file.
        line: the line of the opening fence (1-based).
        lang: the fence's language (`""` when none).
        text: the block's content, dedented.
        skip: the `no-test` reason, if marked.
        write_to: the `file:` path, if marked.
        output: the `text` block right after a python block: what it prints.
    """

    path: Path
    line: int
    lang: str
    text: str
    skip: str | None = None
    write_to: str | None = None
    output: str | None = field(default=None, repr=False)

    @property
    def where(self) -> str:
        path = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        return f"{path}:{self.line}"


def parse_blocks(path: Path) -> list[Block]:
    """The fenced blocks of `path`, with their markers; text blocks that follow a python block
    become its `output`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    last_end = -1  # the line index of the previous block's closing fence
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = m["indent"], i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        prev = next((x for x in reversed(lines[:start]) if x.strip()), "")
        mark = _MARK.match(prev)
        block = Block(path, start + 1, m["lang"], textwrap.dedent("\n".join(body)) + "\n")
        if mark and mark["kind"] == "no-test":
            block.skip = mark["value"]
        elif mark:
            block.write_to = mark["value"]
        right_after = not "".join(lines[last_end + 1 : start]).strip()
        if block.lang == "text" and blocks and blocks[-1].lang == "python" and right_after:
            blocks[-1].output = block.text
        else:
            blocks.append(block)
        last_end = i
        i += 1
    return blocks


def normalize(line: str, *, numbers: bool = False) -> str:
    """A line with hex digests masked (and numbers, unless `numbers`: keep them) and spaces
    collapsed."""
    masked = _HEX.sub("HEX", line)
    return " ".join((masked if numbers else _NUM.sub("#", masked)).split())


def output_mismatch(shown: str, actual: str, *, numbers: bool = False) -> str | None:
    """None when `actual` matches the `shown` output (see the module docstring), else why not.

    `numbers=True` compares the numbers too (a python block's output); otherwise they are
    masked (a console block's, whose commands print timings)."""
    want = [normalize(x, numbers=numbers) for x in shown.rstrip().splitlines()]
    got = [normalize(x, numbers=numbers) for x in actual.rstrip().splitlines()]

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        if j == len(got):
            return False
        if want[i].endswith("..."):
            ok = got[j].startswith(want[i][:-3].rstrip())
        else:
            ok = got[j] == want[i]
        return ok and match(i + 1, j + 1)

    if match(0, 0):
        return None
    return "shown:\n" + shown.rstrip() + "\nprinted:\n" + actual.rstrip()


def commands(text: str) -> list[str]:
    """A shell block's command lines, continuation lines joined, comments and blanks dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out.append(line)
    return out


def console_steps(text: str) -> list[tuple[str, str]]:
    """A console block as (command, shown output) pairs."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        i += 1
    return [(c, "\n".join(o)) for c, o in steps]


class Session:
    """Where one Markdown file's blocks run: a folder, a shell, a Python interpreter."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        shims = folder / ".bin"
        shims.mkdir()
        for name, target in (("ragjudge", "-m ragjudge"), ("python", ""), ("pytest", "-m pytest")):
            shim = shims / name
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {target} "$@"\n')
            shim.chmod(0o755)
        self.env = {
            **os.environ,
            "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(
                [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "RAGJUDGE_CACHE_DIR": str(folder / ".cache"),
            "PYTEST_ADDOPTS": "",
            "COLUMNS": "100",
        }
        self.python: subprocess.Popen[str] | None = None

    def shell(self, command: str, where: str) -> str:
        """Run one command line; its stdout (stderr is shown on failure)."""
        words = shlex.split(command, comments=True)
        if words[0] in SETUP:
            return ""
        assert words[0] in COMMANDS, (
            f"{where}: `{words[0]}` is not a command the examples may run; "
            "mark the block <!-- no-test: REASON --> if it cannot run here"
        )
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert done.returncode == 0, (
            f"{where}: `{command}` exited {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout

    def run_python(self, code: str, where: str) -> str:
        """Run a python block in the file's interpreter; what it printed."""
        if self.python is None:
            self.python = subprocess.Popen(
                [sys.executable, "-c", _DRIVER],
                cwd=self.folder,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=(self.folder / ".python-stderr").open("w"),
                text=True,
            )
        assert self.python.stdin and self.python.stdout
        self.python.stdin.write(json.dumps({"code": code, "where": where}) + "\n")
        self.python.stdin.flush()
        reply = self.python.stdout.readline()
        assert reply, (
            f"{where}: the interpreter died:\n" + (self.folder / ".python-stderr").read_text()
        )
        result = json.loads(reply)
        assert result["error"] is None, f"{where}: the block raised\n{result['error']}"
        return str(result["output"])

    def close(self) -> None:
        if self.python is not None:
            if self.python.stdin:
                self.python.stdin.close()
            self.python.wait(timeout=60)


# The interpreter python blocks run in: one JSON request per line on stdin, one reply per line.
_DRIVER = """
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__main__"}
out = sys.stdout
for request in sys.stdin:
    block = json.loads(request)
    buffer = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(block["code"], block["where"], "exec"), namespace)
    except BaseException:
        error = traceback.format_exc()
    out.write(json.dumps({"output": buffer.getvalue(), "error": error}) + "\\n")
    out.flush()
"""


@pytest.fixture(scope="session")
def quick_start_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`judges/faithfulness.json` as the README's quick start makes it."""
    folder = tmp_path_factory.mktemp("quick-start")
    shutil.copytree(REPO / "examples", folder / "examples")
    session = Session(folder)
    session.shell(
        "ragjudge compile --gold examples/faithfulness/train.jsonl --out judges/faithfulness.json",
        "quick start",
    )
    return folder / "judges" / "faithfulness.json"


def _check_json(block: Block) -> None:
    """A json block is one JSON document or JSON lines."""
    try:
        json.loads(block.text)
    except json.JSONDecodeError:
        for line in block.text.splitlines():
            if line.strip():
                try:
                    json.loads(line)
                except json.JSONDecodeError as exc:
                    raise AssertionError(f"{block.where}: not JSON: {exc}") from None


def _run_file(path: Path, folder: Path) -> list[str]:
    """Run every block of `path` in `folder`; the list of blocks not run, with the reason."""
    session = Session(folder)
    skipped: list[str] = []
    try:
        for block in parse_blocks(path):
            if block.skip is not None:
                skipped.append(f"{block.where}: {block.skip}")
                continue
            if block.write_to:
                target = folder / block.write_to
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text, encoding="utf-8")
            elif block.lang == "python":
                printed = session.run_python(block.text, block.where)
                if block.output is not None:
                    why = output_mismatch(block.output, printed, numbers=True)
                    assert why is None, f"{block.where}: the output shown is stale\n{why}"
            elif block.lang == "bash":
                for command in commands(block.text):
                    session.shell(command, block.where)
            elif block.lang == "console":
                for command, shown in console_steps(block.text):
                    printed = session.shell(command, block.where)
                    why = output_mismatch(shown, printed)
                    assert why is None, (
                        f"{block.where}: the output shown for `{command}` is stale\n{why}"
                    )
            elif block.lang == "json":
                _check_json(block)
    finally:
        session.close()
    return skipped


@pytest.mark.slow
@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
def test_code_blocks_run(path: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    if path.parent.name == "docs":
        (tmp_path / "judges").mkdir()
        judge = request.getfixturevalue("quick_start_judge")
        shutil.copy(judge, tmp_path / "judges" / "faithfulness.json")
    skipped = _run_file(path, tmp_path)
    for why in skipped:
        assert why.split(": ", 1)[1].strip(), f"{why}: a no-test mark must say why"


def test_every_block_is_run_or_says_why() -> None:
    """A block in a language the runner does not run is output, data or config, never code
    that silently goes unchecked."""
    known = RUN_LANGS | {"json", "text", "toml", "yaml", "ini", "csv", "jsonl"}
    for path in DOCS:
        for block in parse_blocks(path):
            assert block.lang in known, (
                f"{block.where}: a ```{block.lang or '(no language)'} block; name its "
                f"language (one of {sorted(known)})"
            )


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in readme
    assert TEST_COMMAND in ci.splitlines()


def test_output_matching_masks_numbers_not_lines() -> None:
    shown = "agreement (n=63):\n  auroc  0.934 [0.861, 0.988]\n...\ndone in 1.2 s"
    assert output_mismatch(shown, "agreement (n=70):\n  auroc  0.5 [0.1, 0.9]\ndone in 3 s") is None
    assert (
        output_mismatch(
            shown, "agreement (n=63):\n  auroc  0.934 [0.861, 0.988]\nx\ny\ndone in 1 s"
        )
        is None
    )
    assert output_mismatch(shown, "agreement (n=63):\n  kappa  0.934 [0.861, 0.988]\ndone in 1 s")
    assert output_mismatch(shown, "agreement (n=63):\n  auroc  0.934 [0.861, 0.988]")
    assert output_mismatch("params: ...", "params: mode=whole, threshold=0.19") is None
    assert output_mismatch("judge@048f32a7b666 ok", "judge@9abc0123def4 ok") is None


def test_parse_blocks_reads_marks_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "<!-- no-test: needs a key -->\n```bash\nragjudge x\n```\n\n"
        "<!-- file: tests/t.py -->\n```python\nx = 1\n```\n\n"
        "- item\n\n  ```bash\n  ragjudge y\n  ```\n"
    )
    blocks = parse_blocks(page)
    assert [(b.lang, b.skip, b.write_to) for b in blocks] == [
        ("python", None, None),
        ("bash", "needs a key", None),
        ("python", None, "tests/t.py"),
        ("bash", None, None),
    ]
    assert blocks[0].output == "1\n" and blocks[3].text == "ragjudge y\n"
    assert commands("ragjudge a \\\n  --b c   # note\n# only a comment\n\n") == [
        "ragjudge a  --b c   # note"
    ]
    assert console_steps("$ ragjudge a\nout 1\nout 2\n$ ragjudge b \\\n  --c\n") == [
        ("ragjudge a", "out 1\nout 2"),
        ("ragjudge b  --c", ""),
    ]


def test_docs_build_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict`: every page in the nav, every link resolves, every API page
    renders without a warning (CI builds it too, in .ci/run)."""
    pytest.importorskip("mkdocs", reason='needs the docs extra: pip install -e ".[docs]"')
    pytest.importorskip("mkdocstrings", reason='needs the docs extra: pip install -e ".[docs]"')
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "api" / "index.html").exists()


def test_a_python_blocks_shown_figures_are_checked() -> None:
    """The README's example printed `balanced accuracy 0.85 on 63 rows` beside a shown 0.81,
    and passed: a python block's numbers are compared as printed."""
    shown = "0.0 False\nbalanced accuracy 0.81 on 63 rows\n"
    printed = "0.0 False\nbalanced accuracy 0.85 on 63 rows\n"
    assert output_mismatch(shown, printed, numbers=True)
    assert output_mismatch(shown, printed) is None  # a console block's numbers are masked
    assert (
        output_mismatch(shown, "0.0  False\nbalanced accuracy 0.81 on 63 rows", numbers=True)
        is None
    )
    assert output_mismatch("id a1b2c3d4e5f6", "id 0f9e8d7c6b5a", numbers=True) is None


@pytest.mark.parametrize(
    ("page", "why"),
    [
        ("```python\nprint('hello 1')\n```\n\n```text\ngoodbye 1\n```\n", "output shown is stale"),
        (
            "```python\nprint('hello', 0.85)\n```\n\n```text\nhello 0.81\n```\n",
            "output shown is stale",
        ),
        ("```python\nraise ValueError('x')\n```\n", "the block raised"),
        ("```console\n$ ragjudge --help\nusage: nothing like it\n```\n", "is stale"),
        ("```bash\nls\n```\n", "not a command the examples may run"),
        ("```bash\nragjudge evaluate --gold missing.jsonl\n```\n", "exited 2"),
        ('```json\n{"a": 1\n```\n', "not JSON"),
    ],
    ids=[
        "stale-output",
        "stale-figure",
        "raises",
        "stale-console",
        "not-allowed",
        "exit-2",
        "bad-json",
    ],
)
def test_the_runner_fails_on(page: str, why: str, tmp_path: Path) -> None:
    """The runner itself: a stale output, a raising block, a command that fails or is not
    allowed, broken JSON each fail the page."""
    path = tmp_path / "page.md"
    path.write_text(page)
    (tmp_path / "run").mkdir()
    with pytest.raises(AssertionError, match=why):
        _run_file(path, tmp_path / "run")
