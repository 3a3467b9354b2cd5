"""Replays: PNG frames, GIFs, and the HTML viewer driven in headless Chromium.

The viewer test drives Debian's ``chromium`` over the DevTools protocol on a
pipe (``--remote-debugging-pipe``, the transport Playwright and Puppeteer use),
so it needs nothing but the browser: no driver binary, no Python package.  It
presses keys and clicks buttons like a user, checks that the frame changes, and
takes a screenshot.  It is skipped only when no Chromium is installed.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import meeplezoo
from meeplezoo.agents.base import RandomAgent
from meeplezoo.envs.core import replay
from meeplezoo.training.arena import play_match
from toygame import ToyGame

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
                None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on PATH (Debian: apt-get install chromium) for the HTML viewer test")


def toy_replay(players: int = 3, seed: int = 5):
    game = ToyGame(players)
    result = play_match(game, [RandomAgent(i) for i in range(players)], seed)
    game, states = replay.states_from_replay(result.replay(), game=game)
    return game, states, result


def landed_game(name: str):
    try:
        return meeplezoo.make_game(name)
    except ImportError as e:
        pytest.skip(f"{name} has not landed yet (its module does not import: {e})")


def random_game(game, seed: int, max_decisions: int | None = None):
    """States and actions of a random game (optionally cut after ``max_decisions``)."""
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    states, actions = [state.clone()], []
    while not state.is_terminal() and (max_decisions is None or len(actions) < max_decisions):
        a = int(rng.choice(state.legal_actions()))
        state.apply(a)
        actions.append(a)
        states.append(state.clone())
    return states, actions


# -- replays, frames, GIFs -------------------------------------------------------------
def test_states_from_replay_reproduces_the_game():
    game, states, result = toy_replay()
    assert len(states) == result.length + 1
    assert states[-1].is_terminal()
    assert states[-1].scores() == result.scores
    assert states[0].to_json() == game.new_state(result.seed).to_json()


def test_states_from_replay_rejects_bad_documents():
    game, _, result = toy_replay()
    with pytest.raises(ValueError, match="not a replay document"):
        replay.states_from_replay({"game": "toy"}, game=game)
    doc = result.replay()
    doc["actions"] = doc["actions"][:3] + [99]
    with pytest.raises(ValueError, match="action 99 at step 4 is not legal"):
        replay.states_from_replay(doc, game=game)
    with pytest.raises(ValueError, match="not 'toy'"):
        replay.states_from_replay({**result.replay(), "game": "kerala"}, game=game)
    with pytest.raises(ValueError, match="configuration"):
        replay.states_from_replay(result.replay(), game=ToyGame(2))


def test_write_frames(tmp_path):
    _, states, _ = toy_replay()
    paths = replay.write_frames(states, tmp_path / "frames")
    assert len(paths) == len(states)
    assert [os.path.basename(p) for p in paths[:2]] == ["frame_0000.png", "frame_0001.png"]
    for state, p in zip(states[:5], paths[:5]):
        with Image.open(p) as im:
            assert np.array_equal(np.asarray(im.convert("RGB")), state.render_rgb())


def test_write_frames_bad_input_writes_nothing(tmp_path):
    _, states, _ = toy_replay()
    with pytest.raises(ValueError, match="empty"):
        replay.write_frames([], tmp_path / "a")
    with pytest.raises(ValueError, match="not a meeplezoo State"):
        replay.write_frames([states[0], "x"], tmp_path / "b")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        replay.write_frames(states, tmp_path / "file")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_write_gif(tmp_path):
    _, states, _ = toy_replay()
    path = replay.write_gif(states, tmp_path / "game.gif", fps=4)
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.n_frames == len(states)
        assert im.info["duration"] == 250
        im.seek(im.n_frames - 1)
        assert im.info["duration"] == 750  # the end is held longer


def test_write_gif_bad_input(tmp_path):
    _, states, _ = toy_replay()
    for fps in (0, -1, "2", True):
        with pytest.raises(ValueError, match="fps"):
            replay.write_gif(states, tmp_path / "g.gif", fps=fps)
    with pytest.raises(ValueError, match="does not exist"):
        replay.write_gif(states, tmp_path / "missing" / "g.gif")
    assert not (tmp_path / "g.gif").exists()


# -- the HTML document -----------------------------------------------------------------
def embedded_data(doc: str) -> dict:
    start = doc.index('<script type="application/json" id="replay-data">') + len(
        '<script type="application/json" id="replay-data">')
    return json.loads(doc[start:doc.index("</script>", start)])


def test_html_is_self_contained_and_complete(tmp_path):
    game, states, result = toy_replay()
    path = replay.write_html(game, states, result.actions, tmp_path / "r.html", title="Toy <test>",
                             players=result.agents, seed=result.seed)
    doc = Path(path).read_text()
    assert "<title>Toy &lt;test&gt;</title>" in doc
    for remote in ("http://", "https://", "src=\"//"):
        assert remote not in doc  # no network
    data = embedded_data(doc)
    assert len(data["steps"]) == len(states)
    assert all(f.startswith("data:image/png;base64,") for f in data["frames"])
    for i, a in enumerate(result.actions):
        step = data["steps"][i + 1]
        assert step["action"] == a
        assert step["action_name"] == states[i].action_name(a)
        assert step["actor"] == states[i].current_player
    assert data["steps"][-1]["terminal"] and data["steps"][-1]["places"] == [p + 1 for p in result.placements]
    assert data["steps"][-1]["scores"] == result.scores
    # every frame decodes to the picture of its position
    for i in (0, len(states) // 2, len(states) - 1):
        png = base64.b64decode(data["frames"][data["steps"][i]["frame"]].split(",", 1)[1])
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), states[i].render_rgb())


def test_html_stores_identical_frames_once():
    game, states, result = toy_replay()
    # each position twice in a row (as a sub-decision that does not change the picture would give)
    doubled = [s for s in states for _ in (0, 1)]
    actions = [result.actions[j // 2] if j % 2 else 9 for j in range(len(doubled) - 1)]
    doc = replay.html_replay(game, doubled, actions)
    data = embedded_data(doc)
    assert len(data["steps"]) == 2 * len(states)
    assert len(data["frames"]) <= len(states)


def test_html_script_cannot_be_closed_by_text():
    class Evil(ToyGame.state_class):
        def render_text(self):
            return "</script><script>alert(1)</script><!--"

    game, states, result = toy_replay()
    evil = []
    for s in states:
        e = s.clone()
        e.__class__ = Evil
        evil.append(e)
    doc = replay.html_replay(game, evil, result.actions)
    assert "alert(1)</script>" not in doc
    assert embedded_data(doc)["steps"][0]["text"].startswith("</script>")


def test_html_palette_frames_are_smaller_and_close(tmp_path):
    game, states, result = toy_replay()
    exact = replay.html_replay(game, states, result.actions, text=False)
    small = replay.html_replay(game, states, result.actions, text=False, colors=16)
    assert len(small) < 0.8 * len(exact)
    data = embedded_data(small)
    png = base64.b64decode(data["frames"][data["steps"][-1]["frame"]].split(",", 1)[1])
    shown = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    assert np.abs(shown - states[-1].render_rgb().astype(int)).mean() < 3
    for colors in (1, 257, 2.5, True):
        with pytest.raises(ValueError, match="colors"):
            replay.html_replay(game, states, result.actions, colors=colors)
    with pytest.raises(ValueError, match="compress_level"):
        replay.html_replay(game, states, result.actions, compress_level=10)


def test_html_bad_input(tmp_path):
    game, states, result = toy_replay()
    with pytest.raises(ValueError, match="need 36 actions, got 35"):
        replay.write_html(game, states, result.actions[:-1], tmp_path / "a.html")
    with pytest.raises(ValueError, match="seats"):
        replay.write_html(game, states, result.actions, tmp_path / "b.html", players=["x"])
    with pytest.raises(ValueError, match="not of"):
        replay.write_html(ToyGame(2), states, result.actions, tmp_path / "c.html")
    with pytest.raises(ValueError, match="does not exist"):
        replay.write_html(game, states, result.actions, tmp_path / "no" / "d.html")
    assert list(tmp_path.iterdir()) == []


def test_cli_replay_exports(tmp_path, monkeypatch, capsys):
    """``meeplezoo replay FILE --html --gif --frames`` on the first game that has landed."""
    from meeplezoo import cli

    for name in meeplezoo.list_envs():
        try:
            game = meeplezoo.make_game(name)
            break
        except ImportError:
            continue
    else:
        pytest.skip("no game has landed yet (none of the registered modules imports)")
    states, actions = random_game(game, seed=3, max_decisions=12)
    doc = {"game": game.name, "config": game.config, "seed": 3, "actions": actions}
    (tmp_path / "r.json").write_text(json.dumps(doc))
    rc = cli.main([
        "replay", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"), "--gif", str(tmp_path / "r.gif"),
        "--frames", str(tmp_path / "frames"),
    ])
    assert rc == 0
    assert len(list((tmp_path / "frames").glob("*.png"))) == len(states)
    assert len(embedded_data((tmp_path / "r.html").read_text())["steps"]) == len(states)
    with Image.open(tmp_path / "r.gif") as im:
        assert im.n_frames == len(states)


def test_viewer_object_for_notebooks(tmp_path):
    game, states, result = toy_replay()
    viewer = replay.ReplayViewer(game, states, result.actions, players=result.agents)
    snippet = viewer._repr_html_()
    assert snippet.startswith("<iframe srcdoc=") and "&lt;script" in snippet
    assert Path(viewer.save(tmp_path / "v.html")).read_text() == viewer.html


# -- the viewer in a real browser ----------------------------------------------------------
class Chromium:
    """Headless Chromium over the DevTools protocol on a pipe (fds 3 and 4 of the browser)."""

    def __init__(self, binary: str, width: int = 1280, height: int = 900, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="meeplezoo-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds() -> None:  # in the child: its fd 3 reads our commands, fd 4 writes its answers
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=wire_fds,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # -- protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium closed the pipe (exit code {self.proc.poll()})")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, session: bool = False, **params) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    # -- page helpers
    def open(self, url: str) -> None:
        for target in ("about:blank", url):  # via a blank page: always a fresh document, even for a new #fragment
            self.events.clear()
            self.call("Page.navigate", session=True, url=target)
            self.wait_event("Page.loadEventFired")
        self.wait_for("document.body && document.body.dataset.ready === 'true'")

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error in {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> None:
        self.poll(f"Boolean({expression})", timeout)

    def poll(self, expression: str, timeout: float = 30.0):
        """The value of ``expression`` once it is truthy (evaluated every 50 ms); TimeoutError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not (value := self.js(expression)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"page never satisfied {expression!r}")
            time.sleep(0.05)
        return value

    def press(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                      f" return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        self.click_at(box[0], box[1])

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click at a point of the page."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except Exception:  # noqa: BLE001 - the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium) for the HTML viewer test")
    b = Chromium(CHROMIUM)
    yield b
    b.close()


def page_state(b: Chromium) -> dict:
    return b.js("""({step: Number(document.body.dataset.step), src: document.getElementById('frame').src,
      counter: document.getElementById('counter').textContent, move: document.getElementById('move').textContent,
      slider: Number(document.getElementById('slider').value), max: Number(document.getElementById('slider').max),
      scores: [...document.querySelectorAll('#scores-body tr')].map(tr => [...tr.cells].map(c => c.textContent)),
      current: document.querySelector('#moves li.current').dataset.step,
      loaded: document.getElementById('frame').complete && document.getElementById('frame').naturalWidth > 0})""")


def png_pixels(png: bytes) -> np.ndarray:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(io.BytesIO(png)) as im:
        return np.asarray(im.convert("RGB"))


@needs_chromium
def test_viewer_in_chromium(browser, tmp_path):
    game, states, result = toy_replay()
    names = result.agents
    path = replay.write_html(game, states, result.actions, tmp_path / "toy.html", players=names, seed=result.seed)
    browser.open(Path(path).as_uri())
    last = len(states) - 1
    s0 = page_state(browser)
    assert s0["step"] == 0 and s0["slider"] == 0 and s0["max"] == last and s0["loaded"]
    assert "Start of the game" in s0["move"]
    shot0 = png_pixels(browser.screenshot())

    browser.press("ArrowRight", 39)
    s1 = page_state(browser)
    assert s1["step"] == 1 and s1["current"] == "1"
    assert s1["src"] != s0["src"]  # the frame changed
    assert states[0].action_name(result.actions[0]) in s1["move"] and names[states[0].current_player] in s1["move"]
    browser.wait_for("document.getElementById('frame').complete")
    shot1 = png_pixels(browser.screenshot())
    assert shot0.shape == shot1.shape and not np.array_equal(shot0, shot1)  # and so did the picture on screen

    browser.click("#next")
    assert page_state(browser)["step"] == 2
    browser.click("#prev")
    browser.click("#prev")
    assert page_state(browser)["step"] == 0
    browser.press("End", 35)
    end = page_state(browser)
    assert end["step"] == last and "Game over" in end["move"]
    assert [row[0] for row in end["scores"]] == names
    assert [float(row[1]) for row in end["scores"]] == result.scores
    assert [int(row[2]) for row in end["scores"]] == [p + 1 for p in result.placements]
    browser.press("ArrowRight", 39)  # past the end: stays
    assert page_state(browser)["step"] == last
    browser.press("Home", 36)
    assert page_state(browser)["step"] == 0

    # the slider, as a user drags it
    browser.js(f"(() => {{ const s = document.getElementById('slider'); s.value = '{last // 2}';"
               " s.dispatchEvent(new Event('input', {bubbles: true})); })()")
    mid = page_state(browser)
    assert mid["step"] == last // 2 and states[last // 2 - 1].action_name(result.actions[last // 2 - 1]) in mid["move"]
    # a decision in the list
    browser.click('#moves li[data-step="3"]')
    assert page_state(browser)["step"] == 3

    # play runs on its own, and stops at the end
    browser.js("document.getElementById('speed').value = '10';"
               " document.getElementById('speed').dispatchEvent(new Event('change'))")
    browser.click("#play")
    browser.wait_for("Number(document.body.dataset.step) >= 6", timeout=10)
    browser.press(" ", 32)  # pause
    paused = page_state(browser)["step"]
    time.sleep(0.4)
    assert page_state(browser)["step"] == paused and browser.js("document.body.dataset.playing") == "false"

    # every position shows its own frame
    browser.press("Home", 36)
    srcs = []
    for _ in range(last + 1):
        srcs.append(page_state(browser)["src"])
        browser.press("ArrowRight", 39)
    assert len(set(srcs)) > last // 2

    shot = tmp_path / "viewer.png"
    shot.write_bytes(browser.screenshot())
    assert shot.stat().st_size > 1000
    assert png_pixels(shot.read_bytes()).std() > 5  # a real picture, not a blank page


@needs_chromium
def test_viewer_opens_at_url_fragment(browser, tmp_path):
    game, states, result = toy_replay()
    path = replay.write_html(game, states, result.actions, tmp_path / "toy.html")
    browser.open(Path(path).as_uri() + "#step=7")
    assert page_state(browser)["step"] == 7
    browser.open(Path(path).as_uri() + "#step=100000")
    assert page_state(browser)["step"] == len(states) - 1
    browser.js("location.hash = '#step=3'")  # a link within the page, or the history
    browser.wait_for("document.body.dataset.step === '3'")


@needs_chromium
@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_viewer_for_each_game(browser, tmp_path, name):
    game = landed_game(name)
    states, actions = random_game(game, seed=11, max_decisions=25)
    path = replay.write_html(game, states, actions, tmp_path / f"{name}.html", seed=11)
    browser.open(Path(path).as_uri())
    first = page_state(browser)
    assert first["loaded"]
    changed = 0
    for i in range(1, len(states)):
        browser.press("ArrowRight", 39)
        now = page_state(browser)
        assert now["step"] == i and states[i - 1].action_name(actions[i - 1]) in now["move"]
        changed += now["src"] != first["src"]
    assert changed > 0, f"{name}: the picture never changed in {len(actions)} decisions"
    browser.wait_for("document.getElementById('frame').complete")
    shot = tmp_path / f"{name}.png"
    shot.write_bytes(browser.screenshot())
    assert png_pixels(shot.read_bytes()).std() > 5


# -- malformed and edited replays ------------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(actions="1,2,3"), "field 'actions' must be a list of action numbers, got a str"),
    (lambda d: d.update(actions={"0": 1}), "field 'actions' must be a list"),
    (lambda d: d.update(actions=[1, "x"]), "field 'actions': entry 1 \\(step 2\\) is 'x'"),
    (lambda d: d.update(actions=[True]), "field 'actions': entry 0"),
    (lambda d: d.update(seed="7"), "field 'seed' must be a non-negative integer, got '7'"),
    (lambda d: d.update(seed=-1), "field 'seed' must be a non-negative integer"),
    (lambda d: d.update(config=[2]), "field 'config' must be an object"),
    (lambda d: d.update(game=3), "field 'game' must be a game id"),
    (lambda d: d.pop("actions"), "field\\(s\\) 'actions' missing"),
])
def test_malformed_replay_names_the_field(change, message):
    game, _, result = toy_replay()
    doc = result.replay()
    change(doc)
    with pytest.raises(ValueError, match=message):
        replay.states_from_replay(doc, game=game if doc.get("game") == "toy" else None)


def test_replay_that_is_not_an_object():
    with pytest.raises(ValueError, match="a replay is a JSON object .* not a list"):
        replay.states_from_replay([1, 2, 3])


def test_edited_seed_or_configuration_is_reported_as_a_mismatch():
    game, _, result = toy_replay()
    doc = result.replay()
    edited = {**doc, "seed": doc["seed"] + 1}
    with pytest.raises(replay.ReplayMismatchError,
                       match=r"replay does not match its configuration or seed: (action \d+ at step \d+ is not legal|"
                             r"the actions end with scores)"):
        replay.states_from_replay(edited, game=game)
    # the recorded scores catch an edit that happens to stay legal
    with pytest.raises(replay.ReplayMismatchError, match="the actions end with scores"):
        replay.states_from_replay({**doc, "scores": [s + 1 for s in doc["scores"]]}, game=game)
    with pytest.raises(replay.ReplayMismatchError, match="the game ends after step"):
        replay.states_from_replay({**doc, "actions": doc["actions"] + [0]}, game=game)


def _landed_game():
    for name in meeplezoo.list_envs():
        try:
            return meeplezoo.make_game(name)
        except ImportError:
            continue
    pytest.skip("no game has landed yet")


def test_cli_replay_reports_malformed_and_edited_files_in_one_line(tmp_path, capsys):
    from meeplezoo import cli

    game = _landed_game()
    path = tmp_path / "g.json"
    assert cli.main(["play", game.name, "--agents", "random", "--seed", "5", "--replay", str(path), "--quiet"]) == 0
    doc = json.loads(path.read_text())
    capsys.readouterr()
    cases = [
        ({**doc, "actions": "oops"}, "field 'actions' must be a list"),
        ({**doc, "seed": doc["seed"] + 1}, "replay does not match its configuration or seed"),
        ({**doc, "actions": doc["actions"][:5] + [10**6]}, f"action {10**6} at step 6 is not legal"),
        ({**doc, "config": {**doc["config"], "no_such_option": 1}}, "no_such_option"),
    ]
    for edited, message in cases:
        path.write_text(json.dumps(edited))
        assert cli.main(["replay", str(path), "--brief"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and str(path) in err and message in err, err
    path.write_text("{not json")
    assert cli.main(["replay", str(path)]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert cli.main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_the_viewer_page_ships_as_package_data():
    """The viewer's HTML, style sheet and script are files beside replay.py, listed as package data (setup.py)
    and in the source distribution (MANIFEST.in), so an installed package can fill them."""
    import ast
    import fnmatch
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    tree = ast.parse((root / "setup.py").read_text())
    data = next(ast.literal_eval(n.value) for n in tree.body
                if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PACKAGE_DATA")
    files = sorted((root / "envs" / "core").glob("replay_viewer.*"))
    assert {f.suffix for f in files} == {".html", ".css", ".js"}
    manifest = (root / "MANIFEST.in").read_text()
    for f in files:
        assert any(fnmatch.fnmatch(f.name, pat) for pat in data["meeplezoo.envs.core"]), f.name
        assert any(fnmatch.fnmatch(f"envs/core/{f.name}", pat) for pat in manifest.split()[1:]), f.name
