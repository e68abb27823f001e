"""The review page in headless Chromium: keys and clicks, a note, going back, reload, resume
after a killed server, two reviewers at once, a rows file changed under the session, a narrow
window. The gold file is checked after each step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from label_helpers import Server, free_port, gold_lines, start_label

from ragjudge.data._gold import load_gold


def _open(browser: Any, server: Server, reviewer: str, **context: Any) -> Any:
    page = browser.new_context(**context).new_page()
    page.goto(server.url)
    page.fill("#reviewer", reviewer)
    page.press("#reviewer", "Enter")
    page.wait_for_selector("#row-id")
    return page


def _row_id(page: Any) -> str:
    return str(page.inner_text("#row-id"))


def _answer_key(page: Any, key: str) -> str:
    """Press `key` on the row shown; wait for the next row; the id answered."""
    before = _row_id(page)
    labeled = _labeled(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "([id, n]) => { const e = document.getElementById('row-id');"
        " const f = document.querySelector(\"dd[data-figure='labeled']\");"
        " return (e === null || e.textContent !== id) && f !== null; }",
        arg=[before, labeled],
    )
    return before


def _labeled(page: Any) -> str:
    return str(page.inner_text("dd[data-figure='labeled']"))


def _wait_lines(path: Path, n: int) -> list[dict[str, Any]]:
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = gold_lines(path)
        if len(lines) >= n:
            return lines
        time.sleep(0.05)
    return gold_lines(path)


def test_keys_clicks_note_and_back(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana")
    # the row as the judge sees it: statements marked, matched words, the score
    assert page.inner_text("#question")
    assert page.locator("ul.statements li").count() >= 1
    verdicts = page.locator("ul.statements li .tag").all_inner_texts()
    assert set(verdicts) <= {"supported", "unsupported", "unsure"}
    assert page.inner_text("#score")

    first = _answer_key(page, "f")
    lines = _wait_lines(gold, 1)
    assert [(x["id"], x["faithful"]) for x in lines] == [(first, 1)]
    meta = lines[0]["meta"]
    assert meta["reviewer"] == "ana" and meta["labeled_at"] and meta["group_id"]

    second = _row_id(page)
    page.click("#unfaithful")
    page.wait_for_function(
        f"document.getElementById('row-id').textContent !== {json.dumps(second)}"
    )
    third = _row_id(page)
    page.keyboard.press("n")
    page.keyboard.type("answer cut short")
    page.keyboard.press("Escape")
    _answer_key(page, "s")
    lines = _wait_lines(gold, 3)
    assert [(x["id"], x["faithful"]) for x in lines] == [(first, 1), (second, 0), (third, None)]
    assert lines[2]["meta"]["review"]["note"] == "answer cut short"
    # every command reads the file: the skip leaves its id out
    assert {r.id: r.faithful for r in load_gold(gold)} == {first: 1, second: 0}

    # back to the second row: its answer is shown; change it with a key
    page.keyboard.press("b")
    page.wait_for_function(f"document.getElementById('row-id').textContent === {json.dumps(third)}")
    page.keyboard.press("b")
    page.wait_for_function(
        f"document.getElementById('row-id').textContent === {json.dumps(second)}"
    )
    assert "chosen" in (page.get_attribute("#unfaithful", "class") or "")
    page.keyboard.press("f")
    page.wait_for_function(f"document.getElementById('row-id').textContent === {json.dumps(third)}")
    lines = _wait_lines(gold, 4)
    assert (lines[-1]["id"], lines[-1]["faithful"]) == (second, 1)
    assert {r.id: r.faithful for r in load_gold(gold)} == {first: 1, second: 1}

    # keyboard only: Tab to a button, Enter
    page.focus("#faithful")
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.getElementById('row-id').textContent !== {json.dumps(third)}")
    lines = _wait_lines(gold, 5)
    assert (lines[-1]["id"], lines[-1]["faithful"]) == (third, 1)
    code, err = server.stop()
    assert code == 0 and "Traceback" not in err


def test_reload_resumes_and_a_killed_server_loses_nothing(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold), "--strategy", "uncertain")
    server = start_label(*args, cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana")
    answered = [_answer_key(page, "f"), _answer_key(page, "u")]
    held = _row_id(page)
    page.reload()
    page.wait_for_selector("#row-id")
    assert _row_id(page) == held  # the name is remembered, the same row is still hers
    assert len(_wait_lines(gold, 2)) == 2

    server.kill()
    assert [x["id"] for x in gold_lines(gold)] == answered
    again = start_label(*args, cwd=tmp_path)
    servers.append(again)
    page.goto(again.url + "?reviewer=ana")  # another port: another origin's storage
    page.wait_for_selector("#row-id")
    assert _row_id(page) not in answered  # resumed where it stopped
    assert _labeled(page).startswith("2 of 30")
    page.keyboard.press("b")
    page.wait_for_function(
        f"document.getElementById('row-id').textContent === {json.dumps(answered[1])}"
    )
    assert {r.id: r.faithful for r in load_gold(gold)} == {answered[0]: 1, answered[1]: 0}


def test_a_note_not_sent_survives_a_reload(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana")
    row = _row_id(page)
    assert not page.is_visible("#draft")
    page.keyboard.press("n")
    page.keyboard.type("the second passage says 1998")
    page.keyboard.press("Escape")
    page.reload()  # the page closed before the answer: the note is kept
    page.wait_for_selector("#row-id")
    assert _row_id(page) == row
    assert page.input_value("#note") == "the second passage says 1998"
    assert page.is_visible("#draft")
    assert gold_lines(gold) == []  # a note kept is not an answer
    # by the server, once it has it (the browser keeps it only until then): another browser
    # sees it too
    drafts = "Object.keys(localStorage).filter((k) => k.startsWith('ragjudge-draft:'))"
    page.wait_for_function(f"{drafts}.length === 0")
    elsewhere = _open(browser, server, "ana")
    assert elsewhere.input_value("#note") == "the second passage says 1998"
    elsewhere.context.close()
    _answer_key(page, "u")
    line = _wait_lines(gold, 1)[0]
    assert (line["id"], line["faithful"]) == (row, 0)
    assert line["meta"]["review"]["note"] == "the second passage says 1998"
    assert page.evaluate(drafts) == []  # sent: the draft is gone
    assert page.input_value("#note") == "" and not page.is_visible("#draft")
    page.reload()
    page.wait_for_selector("#row-id")
    page.keyboard.press("b")  # the answered row shows the note it was sent with, no draft
    page.wait_for_function(f"document.getElementById('row-id').textContent === {json.dumps(row)}")
    assert page.input_value("#note") == "the second passage says 1998"
    assert not page.is_visible("#draft")


def test_two_reviewers_never_share_a_row_and_see_disagreements(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label(
        "--rows", str(traffic), "--gold", str(gold), "--overlap", "0.5", cwd=tmp_path
    )
    servers.append(server)
    ana = _open(browser, server, "ana")
    ben = _open(browser, server, "ben")
    assert _row_id(ana) != _row_id(ben)  # leased: never the same row at once
    shared = _answer_key(ana, "f")
    _answer_key(ben, "f")
    # ben's second row is one ana labeled (overlap 0.5); he disagrees
    assert _row_id(ben) == shared
    assert "ana: faithful" in ben.inner_text("#others")
    _answer_key(ben, "u")
    ben.wait_for_selector("#disagreements")
    assert shared in ben.inner_text("#disagreements")
    lines = _wait_lines(gold, 3)
    assert [(x["id"], x["meta"]["reviewer"], x["faithful"]) for x in lines] == [
        (lines[0]["id"], "ana", 1),
        (lines[1]["id"], "ben", 1),
        (shared, "ben", 0),
    ]
    # the last answer wins for every other command
    assert {r.id: r.faithful for r in load_gold(gold)}[shared] == 0
    ana.reload()
    ana.wait_for_selector("#disagreements")
    assert "ben not faithful" in ana.inner_text("#disagreements")


def test_a_rows_file_changed_under_the_session_stops_it(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana")
    first = _answer_key(page, "f")
    with traffic.open("a") as handle:
        handle.write(json.dumps({"id": "late", "contexts": ["x"], "answer": "y"}) + "\n")
    page.keyboard.press("u")
    page.wait_for_function("document.getElementById('message').textContent.length > 0")
    assert "changed while the session was running" in page.inner_text("#message")
    code, err = server.stop(by_itself=True)
    assert code == 2
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert "traffic.jsonl" in err and "changed" in err
    assert [(x["id"], x["faithful"]) for x in gold_lines(gold)] == [(first, 1)]


def test_narrow_window(browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana", viewport={"width": 360, "height": 740})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    box = page.locator("#faithful").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360
    page.click("#faithful")
    assert _wait_lines(gold, 1)[0]["faithful"] == 1


def test_the_page_loads_nothing_from_elsewhere(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    context = browser.new_context()
    asked: list[str] = []
    context.on("request", lambda request: asked.append(request.url))
    page = context.new_page()
    page.goto(server.url + "?reviewer=ana")
    page.wait_for_selector("#row-id")
    assert asked and all(url.startswith(server.url) for url in asked)


@pytest.mark.parametrize("name", ["<script>alert(1)</script>"])
def test_a_reviewer_name_is_text(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server], name: str
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label(
        "--rows", str(traffic), "--gold", str(gold), "--reviewer", name, cwd=tmp_path
    )
    servers.append(server)
    page = browser.new_context().new_page()
    page.goto(server.url)
    page.wait_for_selector("#row-id")
    assert page.input_value("#reviewer") == name
    page.keyboard.press("f")
    assert _wait_lines(gold, 1)[0]["meta"]["reviewer"] == name


def test_skipped_draws_are_shown(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label(
        "--rows", str(traffic), "--gold", str(gold), "--strategy", "estimate", cwd=tmp_path
    )
    servers.append(server)
    page = _open(browser, server, "ana")
    assert page.locator("dd[data-figure='skipped draws']").count() == 0
    skipped = _answer_key(page, "s")
    page.wait_for_selector("dd[data-figure='skipped draws']")
    shown = page.inner_text("dd[data-figure='skipped draws']")
    last = {x["id"]: x for x in _wait_lines(gold, 1)}[skipped]  # a skip drawn again: written again
    draws = len(last["meta"]["sampling"]["pi"])
    assert shown.startswith(
        f"1 drawn row skipped ({draws} draw{'s' if draws != 1 else ''} dropped): "
        "the estimate assumes a skip says nothing about the label"
    )


def test_started_again_at_once_the_page_keeps_the_name_and_the_note(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold))
    port = free_port()
    server = start_label(*args, cwd=tmp_path, port=port)
    servers.append(server)
    page = _open(browser, server, "ana")
    row = _row_id(page)
    page.keyboard.press("n")
    page.keyboard.type("passage 2 says 1998")
    page.keyboard.press("Escape")
    code, _ = server.stop()  # Ctrl-C: the connections it closed wait in TIME_WAIT
    assert code == 0
    again = start_label(*args, cwd=tmp_path, port=port)  # at once, on the same port
    servers.append(again)
    assert again.url == server.url
    page.reload()  # the same address: the browser still knows the reviewer
    page.wait_for_selector("#row-id")
    assert page.input_value("#reviewer") == "ana" and _row_id(page) == row
    assert page.input_value("#note") == "passage 2 says 1998"

    # another port is another origin (nothing the browser kept is there): the names the gold
    # file knows are one click, and the server kept the note
    other = start_label(*args, cwd=tmp_path)
    servers.append(other)
    fresh = browser.new_context().new_page()
    fresh.goto(other.url)
    fresh.click("#known button[data-name='ana']")
    fresh.wait_for_selector("#row-id")
    assert _row_id(fresh) == row
    assert fresh.input_value("#note") == "passage 2 says 1998"
    assert fresh.is_visible("#draft")


def test_no_answer_buttons_without_a_row(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    rows = tmp_path / "two.jsonl"
    rows.write_text("".join(traffic.read_text().splitlines(keepends=True)[:2]))
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(rows), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = browser.new_context().new_page()
    page.goto(server.url)
    page.wait_for_selector("text=Enter your name to start.")
    answers = ("#faithful", "#unfaithful", "#skip")
    assert [page.is_visible(b) for b in (*answers, "#back", "#note")] == [False] * 5
    page.fill("#reviewer", "ana")
    page.press("#reviewer", "Enter")
    page.wait_for_selector("#row-id")
    assert all(page.is_visible(b) for b in answers)
    _answer_key(page, "f")
    _answer_key(page, "u")
    page.wait_for_selector("text=No rows left to label.")
    assert [page.is_visible(b) for b in answers] == [False] * 3
    assert page.is_visible("#back")  # the answers given can still be changed
    page.keyboard.press("f")
    assert len(_wait_lines(gold, 3)) == 2


def test_a_narrow_window_opens_the_next_row_at_its_question(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    server = start_label("--rows", str(traffic), "--gold", str(gold), cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana", viewport={"width": 360, "height": 600})
    for n in (1, 2):
        first = _row_id(page)
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # read to the end
        assert page.evaluate("window.scrollY") > 600
        page.click("#faithful")
        page.wait_for_function(
            f"document.getElementById('row-id').textContent !== {json.dumps(first)}"
        )
        box = page.locator("#question").bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 600
        # the focus left the button: Enter does not answer the row unread
        assert page.evaluate("document.activeElement.tagName") != "BUTTON"
        page.keyboard.press("Enter")
        assert len(_wait_lines(gold, n + 1)) == n


def test_an_answer_the_server_did_not_get_says_so_and_is_sent_again(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold))
    port = free_port()
    server = start_label(*args, cwd=tmp_path, port=port)
    servers.append(server)
    page = _open(browser, server, "ana", viewport={"width": 360, "height": 600})
    first = _row_id(page)
    server.kill()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.click("#faithful")
    page.wait_for_function(
        "document.getElementById('status').dataset.state === 'retrying'", timeout=10_000
    )
    said = page.inner_text("#status")
    assert said.startswith("Not saved") and "Retrying in" in said
    box = page.locator("#status").bounding_box()  # where the reviewer is, not at the top
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 600
    assert gold_lines(gold) == [] and _row_id(page) == first
    again = start_label(*args, cwd=tmp_path, port=port)
    servers.append(again)
    page.wait_for_function(
        "document.getElementById('status').dataset.state === 'saved'", timeout=30_000
    )
    assert page.inner_text("#status") == f"Saved: {first} faithful."
    assert [(x["id"], x["faithful"]) for x in gold_lines(gold)] == [(first, 1)]
    page.wait_for_function(f"document.getElementById('row-id').textContent !== {json.dumps(first)}")


def test_skips_count_the_same_on_the_page_and_at_start(
    browser: Any, traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold))
    server = start_label(*args, cwd=tmp_path)
    servers.append(server)
    page = _open(browser, server, "ana")
    for key in ("f", "u", "s"):
        _answer_key(page, key)
    page.wait_for_function(
        "document.querySelector(\"dd[data-figure='skipped']\") !== null && "
        "document.querySelector(\"dd[data-figure='skipped']\").textContent.startsWith('1 ')"
    )
    assert _labeled(page).startswith("2 of 30")
    assert page.inner_text("dd[data-figure='skipped']") == "1 row (you: 1)"
    code, err = server.stop()
    assert code == 0 and "2 labeled, 1 skipped in" in err
    again = start_label(*args, cwd=tmp_path)
    servers.append(again)
    assert "30 rows, 2 labeled, 1 skipped so far" in again.line
