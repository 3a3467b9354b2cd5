"""What one seat of a ``meeplezoo serve`` game may see: the hidden-information rules of the page.

What a page is shown goes through :meth:`SeatView.view` for one seat (the *viewer*): the seat's own
``observation_string``, the legal actions only when the viewer is to move, the history with other
players' moves named only as far as the viewer can tell them apart, scores only at the end, and a board
picture as the viewer's configuration lets them see it (the renderer's ``observation_rgb``, e.g. without
Hawaii's other resources when they are not public) and only when it shows nothing a determinization for
the viewer would change (else the viewer's text view drawn as a picture), with clickable targets where
the game's renderer places an action on it (``action_regions(state)``: the places, cells and fields an
action names), one target per place with every legal action that points there. The analysis view ("all
cards open") shows everything; it is off until asked for.

:class:`SeatView` is the part of :class:`~meeplezoo.serve.session.Session` that applies these rules; the
session holds the positions and moves they read.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from meeplezoo.envs.core.render import text_to_rgb
from meeplezoo.registry import GAMES

from .limits import RequestError

HUMAN = "human"
#: determinizations compared with the true position before its picture is shown to one seat
PICTURE_CHECKS = 2
#: determinizations a hidden move of another seat is compared in (see SeatView.move_name)
NAME_CHECKS = 8


class SeatView:
    """The per-seat view of a game: which seat looks, what it may see, and the page data it is shown.

    Mixed into :class:`~meeplezoo.serve.session.Session`, which provides the attributes below; what is
    worked out per position (move names, whether a picture is public, each viewer's history) is kept until
    the positions after the cursor are cut (:meth:`_forget_views`)."""

    id: str
    game: Any
    seats: list[str]
    seed: int | None
    states: list[Any]
    actions: list[int]
    cursor: int
    open_view: bool
    last: int

    def _start_views(self) -> None:
        self._picture_ok: dict[tuple[int, int], bool] = {}
        self._names: dict[tuple[int, int], str] = {}
        self._history: dict[int, list[dict[str, Any]]] = {}  # per viewer (-1: all open), grown move by move

    def _forget_views(self) -> None:
        """Forget what was worked out about the positions after the cursor (they are being cut)."""
        self._names = {k: v for k, v in self._names.items() if k[0] < self.cursor}
        self._picture_ok = {k: v for k, v in self._picture_ok.items() if k[0] <= self.cursor}
        for h in self._history.values():
            del h[self.cursor:]

    def seat_is_human(self, player: int) -> bool:
        return self.seats[player] == HUMAN

    def default_viewer(self, step: int | None = None) -> int:
        """The human seat to move at ``step`` (else the nearest earlier human to move, else the first human
        seat, else seat 0)."""
        step = self.cursor if step is None else step
        for k in range(step, -1, -1):
            s = self.states[k]
            if not s.is_terminal() and self.seat_is_human(s.current_player):
                return int(s.current_player)
        humans = [i for i, s in enumerate(self.seats) if s == HUMAN]
        return humans[0] if humans else 0

    def viewer_of(self, seat: Any) -> int:
        if seat is None or seat == "":
            return self.default_viewer()
        try:
            v = int(seat)
        except (TypeError, ValueError):
            raise RequestError(f"seat must be a seat number, got {seat!r}") from None
        if not 0 <= v < self.game.num_players:
            raise RequestError(f"seat {v} does not exist (seats 0..{self.game.num_players - 1})")
        return v

    def sees_all(self) -> bool:
        return self.open_view or not self.game.hidden_information

    def move_name(self, step: int, viewer: int) -> str:
        """The name of the move from ``step`` as ``viewer`` knows it.

        Another seat's move in a hidden-information game is named only when the viewer could tell it from
        every other move that seat might have made: in the position itself and in determinizations for the
        viewer (other hands the seat might hold, where the move itself may not even be legal), no other
        action leaves the viewer's observation as the move left it. A determinization in which the move
        itself is legal but does not reproduce that observation (a draw the viewer sees) is left out.
        """
        state, action = self.states[step], self.actions[step]
        named = self.sees_all() or state.current_player == viewer
        key = (step, -1 if named else viewer)
        if named and key not in self._names:
            self._names[key] = state.action_name(action)
        if key not in self._names:
            seen = self.states[step + 1].observe(viewer)
            rng = np.random.default_rng(step)
            alike: set[int] = set()
            for d in [state, *(state.determinize(viewer, rng) for _ in range(NAME_CHECKS))]:
                mask = d.legal_mask()
                if mask[action]:
                    after = d.clone()
                    after.apply(action)
                    if not np.array_equal(after.observe(viewer), seen):
                        continue
                for b in np.flatnonzero(mask):
                    if int(b) != action and int(b) not in alike:
                        c = d.clone()
                        c.apply(int(b))
                        if np.array_equal(c.observe(viewer), seen):
                            alike.add(int(b))
            self._names[key] = state.action_name(action) if not alike else \
                f"a hidden choice (one of at least {len(alike) + 1} that look alike to you)"
        return self._names[key]

    def board_picture(self, state: Any, viewer: int) -> np.ndarray:
        """The board picture of ``state`` as ``viewer``'s configuration lets them see it: the renderer's
        ``observation_rgb(state, viewer)`` where it has one (the picture without what an option hides from
        that seat but a determinization keeps, e.g. Hawaii's resources with ``resources_public`` off, which
        a player could in principle count), else ``render_rgb``; the whole picture in the analysis view."""
        if not self.sees_all():
            try:
                own = getattr(self.game.renderer(), "observation_rgb", None)
            except NotImplementedError:  # a game without a renderer module
                own = None
            if own is not None:
                return own(state, viewer)
        return state.render_rgb()

    def picture_is_public(self, step: int, viewer: int) -> bool:
        """Whether the board picture at ``step`` (:meth:`board_picture`) shows nothing hidden from ``viewer``:
        it equals the pictures of determinizations for the viewer (which resample everything the viewer
        cannot know)."""
        if self.sees_all():
            return True
        key = (step, viewer)
        if key not in self._picture_ok:
            state = self.states[step]
            pic = self.board_picture(state, viewer)
            rng = np.random.default_rng(step)
            ok = all(np.array_equal(pic, self.board_picture(state.determinize(viewer, rng), viewer))
                     for _ in range(PICTURE_CHECKS))
            self._picture_ok[key] = ok
        return self._picture_ok[key]

    def picture_png(self, step: int, viewer: int) -> bytes:
        """The PNG of position ``step`` for ``viewer`` (see :meth:`picture_is_public`)."""
        from PIL import Image

        if not 0 <= step <= self.last:
            raise RequestError(f"step must be in 0..{self.last}, got {step}")
        state = self.states[step]
        if self.picture_is_public(step, viewer):
            rgb = self.board_picture(state, viewer)
        else:
            rgb = text_to_rgb(state.observation_string(viewer))
        buf = io.BytesIO()
        Image.fromarray(rgb).save(buf, format="PNG", compress_level=3)
        return buf.getvalue()

    def view(self, viewer: int) -> dict[str, Any]:
        """The page's data for ``viewer``: nothing in it is hidden from that seat unless the analysis view
        is open."""
        step = self.cursor
        state = self.states[step]
        open_ = self.sees_all()
        terminal = state.is_terminal()
        to_move = None if terminal else int(state.current_player)
        if open_ and self.game.hidden_information:  # every seat's own view, one after the other
            text = "\n\n".join(state.observation_string(p) for p in range(self.game.num_players))
        elif open_:
            text = state.render_text()
        else:
            text = state.observation_string(viewer)
        legal = []
        if to_move is not None and (to_move == viewer or open_):
            legal = [{"action": int(a), "name": state.action_name(int(a))} for a in state.legal_actions()]
        regions = []
        if legal:
            try:
                targets = getattr(self.game.renderer(), "action_regions", None)
            except NotImplementedError:  # a game without a renderer module
                targets = None
            if targets is not None and self.picture_is_public(step, viewer):
                regions = _regions(targets(state), legal)
        history = self._history.setdefault(-1 if open_ else viewer, [])
        history.extend({"step": i, "player": int(self.states[i].current_player), "name": self.move_name(i, viewer)}
                       for i in range(len(history), self.last))
        result = None
        if terminal:
            result = {"scores": [float(x) for x in state.scores()],
                      "placements": [int(x) for x in state.placements()],
                      "winners": [int(x) for x in state.winners()], "truncated": bool(state.is_truncated())}
        return {
            "id": self.id, "game": self.game.name, "display_name": GAMES[self.game.name].display_name,
            "config": json.loads(json.dumps(self.game.non_default_options)), "num_players": self.game.num_players,
            "seats": [{"seat": i, "spec": s, "human": s == HUMAN} for i, s in enumerate(self.seats)],
            "viewer": viewer, "open_view": self.open_view, "hidden_information": bool(self.game.hidden_information),
            "step": step, "last": self.last, "to_move": to_move,
            "human_to_move": to_move is not None and self.seat_is_human(to_move), "terminal": terminal,
            "text": text, "legal": legal, "regions": regions, "history": history, "result": result,
            "picture": f"/api/games/{self.id}/picture/{step}.png?seat={viewer}"
                       f"&open={int(self.open_view)}&n={self.last}",
            "can_save_replay": self.seed is not None and (terminal or open_),
            "can_save_state": open_,
        }


def _regions(boxes: dict[int, Any], legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The clickable places of a picture: the legal actions grouped by the box they point to (one click on a
    place with several actions, e.g. a tile's orientations, narrows the choice to them), larger boxes first so
    that a smaller one drawn over a larger one stays clickable."""
    by_box: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for a in legal:
        box = boxes.get(a["action"])
        if box is not None:
            by_box.setdefault(tuple(int(x) for x in box), []).append(a)
    out = [{"box": list(box), "actions": [a["action"] for a in acts], "names": [a["name"] for a in acts]}
           for box, acts in by_box.items()]
    out.sort(key=lambda r: -(r["box"][2] - r["box"][0]) * (r["box"][3] - r["box"][1]))
    return out
