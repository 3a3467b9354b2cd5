"""``meeplezoo serve`` in a real browser: a person's clicks, from the game form to the end of a game.

The server runs in a thread (uvicorn, as ``meeplezoo serve`` runs it) and Debian's headless ``chromium`` is
driven over the DevTools protocol with the driver of the replay viewer's test: real mouse clicks in the
middle of the buttons. For every game a human seat plays a whole game against an agent by clicking legal
actions; the inspector is opened from the page and its numbers checked against the agent's own API; the
page of a human seat in a hidden-information game is checked for the other player's hidden holdings.
Skipped when no Chromium is installed (or the ``app`` extra is missing).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from test_replay import CHROMIUM, Chromium, png_pixels  # noqa: E402

from meeplezoo.agents.registry import make  # noqa: E402
from meeplezoo.serve import Limits, create_app  # noqa: E402

GAMES = ("kerala", "hawaii", "asara", "haus_der_sonne")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    app = create_app(Limits([]))
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium) for the browser test")
    b = Chromium(CHROMIUM, width=1400, height=1000, timeout=60)
    yield b
    b.close()


def click(b: Chromium, selector: str, timeout: float = 10.0) -> None:
    """A real mouse click in the middle of the element, scrolled into view first (the action list scrolls).

    The point is taken in the same evaluation that checks the element is what the page shows there: a busy
    machine may still be laying the page out (the board's picture loading moves what is below it), and a
    point measured before a layout change lands on something else.
    """
    sel = json.dumps(selector)
    b.js(f"document.querySelector({sel}).scrollIntoView({{block: 'center'}})")
    probe = (f"(() => {{ const e = document.querySelector({sel}); if (!e) return null;"
             f" const r = e.getBoundingClientRect(); const x = r.x + r.width / 2, y = r.y + r.height / 2;"
             f" const t = document.elementFromPoint(x, y);"
             f" return t !== null && (t === e || e.contains(t)) ? [x, y] : null; }})()")
    b.click_at(*b.poll(probe, timeout))


def set_value(b: Chromium, selector: str, value: str) -> None:
    """Choose a value in a form field, as a user does (the change event fires)."""
    b.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = {json.dumps(value)};"
         " e.dispatchEvent(new Event('change', {bubbles: true})); })()")


def start_game(b: Chromium, url: str, game: str, opponent: str, seed: int) -> None:
    b.open(url)
    set_value(b, "#game", game)
    set_value(b, "#players", "2")
    set_value(b, '.seat-kind[data-seat="0"]', "human")
    set_value(b, '.seat-kind[data-seat="1"]', opponent)
    b.js(f"document.getElementById('seed').value = '{seed}'")
    set_value(b, "#pace", "0")
    click(b, "#start")
    settled(b)


def settled(b: Chromium, timeout: float = 60) -> dict:
    """Wait until the page waits for the human (or the game is over), with the board's picture loaded (the
    layout no longer moves), and return its state."""
    b.wait_for("document.body.dataset.step !== undefined && document.body.dataset.busy !== 'true' && "
               "(document.body.dataset.humanToMove === 'true' || document.body.dataset.terminal === 'true' ||"
               " document.body.dataset.error) && (document.body.dataset.pictureLoaded === 'true' ||"
               " document.body.dataset.error)", timeout=timeout)
    return b.js("({...document.body.dataset, status: document.getElementById('status').textContent,"
                " buttons: document.querySelectorAll('#actions button:not([disabled])').length})")


def session_of(app, b: Chromium):
    sid = b.js("document.getElementById('save-replay').href.split('/api/games/')[1].split('/')[0]")
    return app.state.sessions.get(sid)


def play_by_clicking(b: Chromium, max_clicks: int = 2000) -> tuple[int, dict]:
    """Click the human's legal actions (a different one each time, by a fixed rule) until the game ends."""
    rng = np.random.default_rng(0)
    clicks = 0
    page = settled(b)
    while page.get("terminal") != "true":
        assert not page.get("error"), page["error"]
        assert page["buttons"] > 0, page
        k = int(rng.integers(page["buttons"]))
        click(b, f"#actions button:not([disabled]):nth-of-type({k + 1})")
        clicks += 1
        assert clicks <= max_clicks, "the game did not end"
        try:
            b.wait_for(f"document.body.dataset.step !== '{page['step']}' || document.body.dataset.error")
        except TimeoutError as e:
            raise AssertionError(f"click {clicks} on button {k + 1} of {page['buttons']} changed nothing; the page"
                                 f" now: {b.js('({...document.body.dataset})')}") from e
        page = settled(b)
    return clicks, page


def _full_game(server, browser, game: str) -> None:
    app, url = server
    start_game(browser, url, game, "heuristic", seed=11)
    clicks, page = play_by_clicking(browser)
    assert clicks > 5
    assert "Game over" in page["status"]
    s = session_of(app, browser)
    final = s.states[-1]
    assert final.is_terminal() and s.last == len(s.actions)
    # every click was a human seat's move, the heuristic played the rest
    humans = sum(1 for i in range(s.last) if s.states[i].current_player == 0)
    assert humans == clicks
    for score in final.scores():
        assert f" {score:g}" in page["status"]
    # the picture of the final position was shown
    browser.wait_for("document.body.dataset.pictureLoaded === 'true'")
    assert png_pixels(browser.screenshot()).std() > 5


@pytest.mark.parametrize("game", GAMES)
def test_full_game_by_clicking(server, browser, game):
    _full_game(server, browser, game)


def test_history_undo_and_inspector_in_the_page(server, browser):
    app, url = server
    start_game(browser, url, "kerala", "heuristic", seed=4)
    for _ in range(3):
        step = browser.js("document.body.dataset.step")
        click(browser, "#actions button:not([disabled])")
        browser.wait_for(f"document.body.dataset.step !== '{step}'")
        settled(browser)
    s = session_of(app, browser)
    last = s.last
    assert last >= 6  # three human moves and the heuristic's answers

    # back through the history and forward again: the page shows each position, the game is unchanged
    click(browser, "#prev")
    browser.wait_for(f"document.body.dataset.step === '{last - 1}'")
    click(browser, "#first")
    browser.wait_for("document.body.dataset.step === '0'")
    assert browser.js("document.querySelector('#history li.current').dataset.step") == "0"
    click(browser, "#latest")
    browser.wait_for(f"document.body.dataset.step === '{last}'")
    assert s.last == last

    # the inspector, opened from the page on the position on screen, equals the agent's own numbers
    set_value(browser, "#inspect-spec", "pretrained:sims=40")
    browser.js("document.getElementById('inspect-spec').value = 'pretrained:sims=40'")
    click(browser, "#inspect")
    browser.wait_for("document.getElementById('inspector-table')", timeout=60)
    rows = browser.js("[...document.querySelectorAll('#inspector-table tr[data-action]')].map(tr => "
                      "[Number(tr.dataset.action), tr.cells[2].textContent])")
    state = s.states[last]
    agent = make("pretrained:sims=40", s.game, num_players=2, seed=last)
    result = agent.search(state.clone(), observation=state.observe(state.current_player),
                          action_mask=state.legal_mask())
    total = result.visits.sum()
    for action, share in rows:
        assert share == f"{100 * result.visits[action] / total:.1f}%"
    chosen = browser.js("document.querySelector('#inspector-table tr.agent-choice').dataset.action")
    assert int(chosen) == result.action
    # and the agent's choice is marked among the clickable actions
    assert browser.js("document.querySelector('#actions button.hl-agent').dataset.action") == str(result.action)
    assert s.last == last  # inspecting played nothing

    # undo goes back to the human's previous decision
    click(browser, "#undo")
    browser.wait_for(f"Number(document.body.dataset.last) < {last}")
    assert s.last < last and s.states[s.last].current_player == 0


def test_human_page_hides_the_other_hand_until_analysis_view(server, browser):
    app, url = server
    start_game(browser, url, "asara", "heuristic", seed=5)
    s = session_of(app, browser)
    state = s.states[s.cursor]
    secret = [line for line in state.observation_string(1).splitlines()
              if line.startswith("Hand of P1")]  # the heuristic's hand, in its own view
    assert secret
    html = browser.js("document.documentElement.outerHTML")
    assert secret[0] not in html and "Hand of P1" not in html
    assert browser.js("document.getElementById('analysis-banner').hidden") is True
    click(browser, "#open-view")
    browser.wait_for("document.getElementById('analysis-banner').hidden === false")
    assert secret[0] in browser.js("document.getElementById('text').textContent")
    click(browser, "#open-view")
    browser.wait_for("document.getElementById('analysis-banner').hidden === true")
    assert "Hand of P1" not in browser.js("document.documentElement.outerHTML")


def test_bad_spec_shows_a_clear_error(server, browser):
    app, url = server
    browser.open(url)
    set_value(browser, "#game", "kerala")
    set_value(browser, '.seat-kind[data-seat="1"]', "other...")
    browser.js("document.querySelectorAll('.seat-spec')[1].value = 'net:/etc/passwd.zip'")
    click(browser, "#start")
    browser.wait_for("document.getElementById('error').textContent.length > 0")
    message = browser.js("document.getElementById('error').textContent")
    assert message.startswith("seat 1:") and "/etc/passwd.zip" in message and "checkpoint folder" in message
    assert browser.js("document.getElementById('play').hidden") is True


def _targets(browser) -> list[tuple[list[int], str]]:
    return [(list(map(int, acts.split(","))), title) for acts, title in browser.js(
        "[...document.querySelectorAll('#targets button')].map(b => [b.dataset.actions, b.title])")]


@pytest.mark.parametrize("game", GAMES)
def test_places_on_the_board_are_clickable(server, browser, game):
    """A click on a place of the picture plays its action, or, where several actions point there (a tile's
    cells and orientations, a disc's values, the building circle's sections), lists only those; a click on
    one of them plays it."""
    app, url = server
    start_game(browser, url, game, "heuristic", seed=3)
    s = session_of(app, browser)
    browser.wait_for("document.querySelectorAll('#targets button').length > 0")
    targets = _targets(browser)
    state = s.states[s.cursor]
    legal = set(state.legal_actions())
    boxes = state.game.renderer().action_regions(state)
    assert targets and all(set(acts) <= legal and len({tuple(boxes[a]) for a in acts}) == 1 for acts, _ in targets)
    step = s.cursor
    acts, title = max(targets, key=lambda t: len(t[0]))  # the place with the most actions
    click(browser, f'#targets button[data-actions="{",".join(map(str, acts))}"]')
    if len(acts) == 1:
        assert title == state.action_name(acts[0])
    else:
        browser.wait_for(f"document.body.dataset.narrowed === '{','.join(map(str, acts))}'")
        listed = browser.js("[...document.querySelectorAll('#actions button[data-action]')].map(b => "
                            "Number(b.dataset.action))")
        assert listed == acts, "the action list narrows to the actions of the place clicked"
        assert s.cursor == step, "narrowing plays nothing"
        click(browser, f'#actions button[data-action="{acts[-1]}"]')
    browser.wait_for(f"document.body.dataset.step !== '{step}'")
    assert s.actions[step] == acts[-1]  # the place clicked on the picture was played
    settled(browser)
    assert browser.js("document.body.dataset.narrowed") == "", "a new position lists every action again"
