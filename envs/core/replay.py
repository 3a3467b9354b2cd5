"""Watching games: PNG frames, animated GIFs and a self-contained HTML replay viewer.

A replay is ``(config, seed, actions)`` (see :meth:`MatchResult.replay`); the
positions are re-created by applying the actions, and each position is drawn
with the game's own :meth:`State.render_rgb`.  Nothing here knows any game.

    game, states = states_from_replay(result.replay())
    write_html(game, states, result.actions, "game.html", title="Kerala, seed 7")
    write_gif(states, "game.gif", fps=2)
    write_frames(states, "frames/")

The HTML file needs no network and no server: the frames are inline base64
PNGs (identical pictures are stored once), the viewer has a step slider,
previous / next / play buttons, the list of decisions with the acting player,
the scores of every position, and keyboard control (arrows, Home/End, space).
``#step=N`` in the URL opens it at position ``N``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any

import numpy as np

from .game import Game, State
from .resolve import resolve_game

__all__ = [
    "ReplayMismatchError",
    "ReplayViewer",
    "check_replay_document",
    "frame_image",
    "html_replay",
    "png_bytes",
    "states_from_replay",
    "write_frames",
    "write_gif",
    "write_html",
]


# -- replays -> positions -----------------------------------------------------------
REPLAY_FIELDS = ("game", "config", "seed", "actions")


class ReplayMismatchError(ValueError):
    """The replay's actions are not a game of its configuration and seed (it was edited, or is from elsewhere)."""


def check_replay_document(doc: Any) -> tuple[str, dict[str, Any], int, list[int]]:
    """``(game, config, seed, actions)`` of a replay document; ValueError naming the field that is wrong."""
    if not isinstance(doc, dict):
        raise ValueError(f"a replay is a JSON object with fields {', '.join(REPLAY_FIELDS)}, "
                         f"not a {type(doc).__name__}")
    missing = [k for k in REPLAY_FIELDS if k not in doc]
    if missing:
        raise ValueError(f"not a replay document: field(s) {', '.join(repr(k) for k in missing)} missing "
                         f"(expected {', '.join(REPLAY_FIELDS)})")
    name, config, seed, actions = doc["game"], doc["config"], doc["seed"], doc["actions"]
    if not isinstance(name, str) or not name:
        raise ValueError(f"replay field 'game' must be a game id (a string), got {name!r}")
    if not isinstance(config, dict):
        raise ValueError(f"replay field 'config' must be an object of rule options, got {config!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"replay field 'seed' must be a non-negative integer, got {seed!r}")
    if not isinstance(actions, list):
        raise ValueError(f"replay field 'actions' must be a list of action numbers, got a {type(actions).__name__}")
    for i, a in enumerate(actions):
        if isinstance(a, bool) or not isinstance(a, int):
            raise ValueError(f"replay field 'actions': entry {i} (step {i + 1}) is {a!r}, not an action number")
    return name, dict(config), seed, list(actions)


def states_from_replay(doc: dict[str, Any], game: Game | None = None, *,
                       resolve: Callable[..., Game] | None = None) -> tuple[Game, list[State]]:
    """Re-create every position of a replay document: ``(game, [state_0, ..., state_T])``.

    ``doc`` has ``game``, ``config``, ``seed`` and ``actions`` (what
    ``MatchResult.replay()`` returns and ``meeplezoo play --replay`` writes).
    A malformed document raises ValueError naming the field; actions that
    are not a game of the configuration and seed (an edited replay) raise
    :class:`ReplayMismatchError` naming the step and action.  Without ``game``
    the document's ``game`` and ``config`` are built by ``resolve(name,
    num_players, **options)``, by default the resolver ``import meeplezoo``
    installs (:func:`.resolve.resolve_game`).
    """
    name, config, seed, actions = check_replay_document(doc)
    if game is None:
        make_game = resolve or resolve_game
        n = config.pop("num_players", None)
        try:
            game = make_game(name, n, **config)
        except ValueError as e:
            raise ValueError(f"replay fields 'game'/'config' do not make a game: {e}") from None
        except TypeError as e:
            raise ValueError(f"replay field 'config' is not a configuration of {name!r}: {e}") from None
    elif game.name != name:
        raise ValueError(f"replay is for game {name!r}, not {game.name!r}")
    elif json.loads(json.dumps(game.config)) != json.loads(json.dumps(doc["config"])):
        raise ValueError(f"replay is for the configuration {doc['config']}, not {game.config}")
    try:
        state = game.new_state(seed)
    except ValueError as e:
        raise ValueError(f"replay field 'seed': {e}") from None
    states = [state.clone()]
    mismatch = "replay does not match its configuration or seed"
    for i, a in enumerate(actions):
        if state.is_terminal():
            raise ReplayMismatchError(f"{mismatch}: the game ends after step {i}, but the replay has "
                                      f"{len(actions)} actions")
        if not 0 <= a < game.num_actions or not state.legal_mask()[a]:
            raise ReplayMismatchError(f"{mismatch}: action {a} at step {i + 1} is not legal")
        state.apply(a)
        states.append(state.clone())
    recorded = doc.get("scores")
    if recorded is not None and state.is_terminal():
        got = [float(x) for x in state.scores()]
        try:
            same = [float(x) for x in recorded] == got
        except (TypeError, ValueError):
            raise ValueError(f"replay field 'scores' must be a list of numbers, got {recorded!r}") from None
        if not same:
            raise ReplayMismatchError(f"{mismatch}: the actions end with scores {got}, the replay records "
                                      f"{recorded}")
    return game, states


# -- pictures ---------------------------------------------------------------------
#: palette sizes a GIF can hold; the fastest frame rate accepted; zlib's levels
GIF_COLORS = (2, 256)
MAX_FPS = 100
MAX_PNG_COMPRESSION = 9


def frame_image(state: State):  # noqa: ANN201 - PIL.Image.Image
    """The position as a PIL RGB image (checked: uint8, (H, W, 3))."""
    from PIL import Image

    rgb = state.render_rgb()
    if not isinstance(rgb, np.ndarray) or rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:  # noqa: PLR2004 - (H, W, RGB)
        got = f"{type(rgb).__name__} {getattr(rgb, 'dtype', '')} {getattr(rgb, 'shape', '')}"
        raise ValueError(f"{state.game.name}: render_rgb() must return uint8 (H, W, 3), got {got}")
    return Image.fromarray(rgb, "RGB")


def png_bytes(image: Any, compress_level: int = 6, colors: int | None = None) -> bytes:
    """PNG encoding of a PIL image or an RGB array.

    ``colors`` (2..256) stores a palette image instead: two to three times
    smaller and faster to encode, at a mean error under one level per channel
    on flat board art; ``None`` keeps the picture exact.
    """
    from PIL import Image

    if isinstance(image, np.ndarray):
        image = Image.fromarray(image, "RGB")
    if colors is not None:
        image = image.quantize(_check_colors(colors), method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def _check_states(states: Sequence[State]) -> list[State]:
    states = list(states)
    if not states:
        raise ValueError("a replay needs at least one position; states is empty")
    for i, s in enumerate(states):
        if not isinstance(s, State):
            raise ValueError(f"states[{i}] is a {type(s).__name__}, not a meeplezoo State")
    return states


def _check_colors(colors: Any) -> int:
    lo, hi = GIF_COLORS
    if isinstance(colors, bool) or not isinstance(colors, int) or not lo <= colors <= hi:
        raise ValueError(f"colors must be None (exact pictures) or an int in {lo}..{hi}, got {colors!r}")
    return colors


def _check_fps(fps: float) -> float:
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= MAX_FPS:
        raise ValueError(f"fps must be a number in (0, {MAX_FPS}], got {fps!r}")
    return float(fps)


def write_frames(states: Iterable[State], directory: str | os.PathLike, *, prefix: str = "frame") -> list[str]:
    """One PNG per position (``frame_0000.png`` = the start); returns the paths written.

    The directory is created if needed; existing files with the same names are replaced.
    """
    states = _check_states(states)
    directory = os.fspath(directory)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ValueError(f"frames directory {directory!r} exists and is not a directory")
    if not prefix or os.sep in prefix:
        raise ValueError(f"prefix must be a non-empty file-name prefix, got {prefix!r}")
    os.makedirs(directory, exist_ok=True)
    digits = max(4, len(str(len(states) - 1)))
    paths = []
    for i, s in enumerate(states):
        path = os.path.join(directory, f"{prefix}_{i:0{digits}d}.png")
        with open(path, "wb") as f:
            f.write(png_bytes(frame_image(s)))
        paths.append(path)
    return paths


def _pad_to(image: Any, size: tuple[int, int], bg: tuple[int, int, int]):  # noqa: ANN202
    from PIL import Image

    if image.size == size:
        return image
    canvas = Image.new("RGB", size, bg)
    canvas.paste(image, (0, 0))
    return canvas


def write_gif(states: Iterable[State], path: str | os.PathLike, fps: float = 2, *, hold_last: float = 3.0,
              loop: int = 0) -> str:
    """An animated GIF of the positions at ``fps`` frames per second.

    Frames of different sizes are padded (top-left aligned) to the largest; the
    final position is held ``hold_last`` times longer so the result can be read.
    ``loop=0`` loops forever (GIF convention).
    """
    states = _check_states(states)
    fps = _check_fps(fps)
    if not (isinstance(hold_last, (int, float)) and hold_last >= 1):
        raise ValueError(f"hold_last must be a number >= 1, got {hold_last!r}")
    path = os.fspath(path)
    _check_parent(path)
    images = [frame_image(s) for s in states]
    size = (max(im.width for im in images), max(im.height for im in images))
    bg = images[0].getpixel((0, 0))
    images = [_pad_to(im, size, bg) for im in images]
    ms = max(20, int(round(1000 / fps)))
    durations = [ms] * len(images)
    durations[-1] = int(ms * hold_last)
    first, rest = images[0], images[1:]
    buf = io.BytesIO()
    first.save(buf, format="GIF", save_all=True, append_images=rest, duration=durations, loop=loop,
               optimize=False, disposal=1)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return path


def _check_parent(path: str) -> None:
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"cannot write {path!r}: directory {parent!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path!r}: it is a directory")


# -- the HTML viewer ------------------------------------------------------------------
def _replay_data(game: Game, states: Sequence[State], actions: Sequence[int], *, players: Sequence[str] | None,
                 title: str, seed: Any, text: bool, compress_level: int, colors: int | None) -> dict[str, Any]:
    states = _check_states(states)
    if colors is not None:
        _check_colors(colors)
    level_ok = isinstance(compress_level, int) and not isinstance(compress_level, bool)
    if not level_ok or not 0 <= compress_level <= MAX_PNG_COMPRESSION:
        raise ValueError(f"compress_level must be an int in 0..{MAX_PNG_COMPRESSION}, got {compress_level!r}")
    actions = [int(a) for a in actions]
    if len(actions) != len(states) - 1:
        raise ValueError(f"{len(states)} positions need {len(states) - 1} actions, got {len(actions)}")
    n = game.num_players
    if players is None:
        players = [f"player {p}" for p in range(n)]
    players = [str(p) for p in players]
    if len(players) != n:
        raise ValueError(f"players names {len(players)} seats, the game has {n}")
    frames: list[str] = []
    index: dict[str, int] = {}
    steps = []
    for i, s in enumerate(states):
        if s.game != game:
            raise ValueError(f"states[{i}] is a position of {s.game!r}, not of {game!r}")
        png = png_bytes(frame_image(s), compress_level, colors)
        key = hashlib.sha1(png).hexdigest()
        if key not in index:
            index[key] = len(frames)
            frames.append("data:image/png;base64," + base64.b64encode(png).decode("ascii"))
        step: dict[str, Any] = {
            "frame": index[key],
            "to_move": int(s.current_player),
            "terminal": bool(s.is_terminal()),
            "scores": [float(x) for x in s.scores()],
        }
        if step["terminal"]:
            step["places"] = [int(p) + 1 for p in s.placements()]
        if i > 0:
            prev = states[i - 1]
            step["actor"] = int(prev.current_player)
            step["action"] = actions[i - 1]
            step["action_name"] = prev.action_name(actions[i - 1])
        if text:
            step["text"] = s.render_text()
        steps.append(step)
    return {
        "title": title,
        "game": game.name,
        "pretty_name": getattr(game, "pretty_name", game.name),
        "config": game.config,
        "seed": seed,
        "players": players,
        "frames": frames,
        "steps": steps,
    }


#: the viewer's page: the HTML with ``{{name}}`` fields, its style sheet and script (package data beside this
#: module: ``replay_viewer.html``, ``.css``, ``.js``)
PAGE = "replay_viewer"
_FIELD = re.compile(r"\{\{(\w+)\}\}")


@functools.cache
def _asset(name: str) -> str:
    """A file of the viewer's page, read once."""
    return resources.files(__package__).joinpath(f"{PAGE}.{name}").read_text(encoding="utf-8")


def _json_for_script(obj: Any) -> str:
    """JSON safe inside a <script> element (no ``</script>`` or ``<!--`` can end it)."""
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_replay(game: Game, states: Sequence[State], actions: Sequence[int], *, title: str | None = None,
                players: Sequence[str] | None = None, seed: Any = None, text: bool = True,
                compress_level: int = 6, colors: int | None = None) -> str:
    """The replay viewer as one HTML document (a string); see :func:`write_html`."""
    if title is None:
        title = f"{getattr(game, 'pretty_name', game.name)} replay"
    data = _replay_data(game, states, actions, players=players, title=str(title), seed=seed, text=text,
                        compress_level=compress_level, colors=colors)
    opts = ", ".join(f"{k}={v}" for k, v in game.non_default_options.items())
    meta = f"{data['pretty_name']} \u00b7 {game.num_players} players"
    if opts:
        meta += f" \u00b7 {opts}"
    if seed is not None:
        meta += f" \u00b7 seed {seed}"
    meta += f" \u00b7 {len(data['steps']) - 1} decisions"
    t = html.escape(str(title))
    text_block = ('<details><summary>Position as text</summary><pre id="text"></pre></details>' if text else "")
    values = {"title": t, "meta": html.escape(meta), "css": _asset("css"), "text_block": text_block,
              "data": _json_for_script(data), "js": _asset("js")}
    return _FIELD.sub(lambda m: values[m.group(1)], _asset("html"))


def write_html(game: Game, states: Sequence[State], actions: Sequence[int], path: str | os.PathLike, *,
               title: str | None = None, players: Sequence[str] | None = None, seed: Any = None,
               text: bool = True, compress_level: int = 6, colors: int | None = None) -> str:
    """Write a self-contained HTML replay viewer (one file, no network) and return its path.

    ``states`` are the positions ``state_0 .. state_T`` and ``actions`` the T
    decisions between them; ``players`` optionally names the seats (agent
    names); ``text`` also embeds each position's ``render_text()``;
    ``colors=256`` stores palette frames (a file two to three times smaller,
    see :func:`png_bytes`).  Every frame is rendered before the file is
    opened, so a failure writes nothing.
    """
    path = os.fspath(path)
    _check_parent(path)
    doc = html_replay(game, states, actions, title=title, players=players, seed=seed, text=text,
                      compress_level=compress_level, colors=colors)
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc)
    return path


class ReplayViewer:
    """The HTML viewer for notebooks: ``ReplayViewer(game, states, actions)`` displays itself.

    Jupyter shows it in an ``<iframe srcdoc>`` so several viewers in one
    notebook do not share element ids; ``.save(path)`` writes the file.
    Frames default to a 256-colour palette (``colors=256``) to keep notebook
    outputs small; pass ``colors=None`` for exact pictures.
    """

    def __init__(self, game: Game, states: Sequence[State], actions: Sequence[int], *, height: int = 720,
                 **kwargs: Any) -> None:
        kwargs.setdefault("colors", 256)
        self.html = html_replay(game, states, actions, **kwargs)
        self.height = int(height)

    @classmethod
    def from_replay(cls, doc: dict[str, Any], **kwargs: Any) -> ReplayViewer:
        game, states = states_from_replay(doc)
        kwargs.setdefault("players", doc.get("agents"))
        kwargs.setdefault("seed", doc.get("seed"))
        return cls(game, states, doc["actions"], **kwargs)

    def save(self, path: str | os.PathLike) -> str:
        path = os.fspath(path)
        _check_parent(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" style="width:100%;height:{self.height}px;'
                f'border:1px solid #ddd" sandbox="allow-scripts"></iframe>')
