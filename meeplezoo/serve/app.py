"""The Starlette application of ``meeplezoo serve``: a JSON API over :class:`Session` and the static page.

Routes (every error is ``{"error": message}`` with status 400, 404 for an unknown game id, and leaves the
game as it was):

* ``GET /`` the page; ``/static/*`` its script and style (package data, no build step)
* ``GET /api/games`` the catalogue: games, player counts, rule options, agent examples
* ``POST /api/games`` a new game (``game``, ``num_players``, ``options``, ``seed``, ``seats``), or one from
  a ``replay`` document or a saved ``state``
* ``GET /api/games/{id}?seat=K`` the page data for seat K (default: the human to move)
* ``POST /api/games/{id}/play`` ``{action, step}``: a human's move
* ``POST /api/games/{id}/advance`` ``{step}``: the agent to move plays
* ``POST /api/games/{id}/undo``, ``/goto`` ``{step}``, ``/open`` ``{open}`` (the analysis view)
* ``POST /api/games/{id}/inspect`` ``{spec, step, seat}``: the inspector, without playing
* ``GET /api/games/{id}/picture/{step}.png?seat=K`` the board picture seat K may see
* ``GET /api/games/{id}/replay.json``, ``/state.json`` save the game (when nothing hidden is given away)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .limits import Limits, RequestError
from .session import Session, Sessions, game_catalogue

STATIC = Path(__file__).resolve().parent / "static"
#: the largest request body read (a long replay or a saved position fits easily)
MAX_BODY = 2 * 1024 * 1024
#: agent specs offered in the seat and inspector menus (any other allowed spec may be typed)
AGENT_EXAMPLES = ["heuristic", "random", "pretrained", "pretrained:sims=100", "mcts:time=0.5", "mcts:sims=200"]


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RequestError(f"request body is larger than {MAX_BODY} bytes")
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise RequestError(f"request body is not JSON: {e}") from None


def guarded(fn: Callable[[Request, Any], Any]) -> Callable[[Request], Any]:
    """An endpoint running ``fn(request, body)`` off the event loop; errors become JSON with a status."""
    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else None
            result = await run_in_threadpool(fn, request, body)
        except RequestError as e:
            return _error(str(e))
        except LookupError as e:
            return _error(str(e.args[0]) if e.args else "not found", 404)
        return result if isinstance(result, Response) else JSONResponse(result)
    return endpoint


def body_dict(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    return body


def viewer(s: Session, request: Request, body: Any = None) -> int:
    """The seat a request looks as: ``seat`` in the body, else in the query, else the session's default."""
    seat = request.query_params.get("seat")
    if isinstance(body, dict) and "seat" in body:
        seat = body["seat"]
    return s.viewer_of(seat)


class Api:
    """The state of one app (its limits, its sessions, the slots agents compute in) and the endpoints that
    need it."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.sessions = Sessions(limits)
        self.compute = threading.BoundedSemaphore(limits.max_parallel)

    def computing(self, fn: Callable[[Session, Request, Any], Any]) -> Callable[[Session, Request, Any], Any]:
        """At most ``limits.max_parallel`` agent moves and inspections run at once, over all games."""
        def run(s: Session, request: Request, body: Any) -> Any:
            with self.compute:
                return fn(s, request, body)
        return run

    def locked(self, fn: Callable[[Session, Request, Any], Any]) -> Callable[[Request, Any], Any]:
        """``fn`` on the request's game, one request at a time per game: moves, undo and searches do not
        interleave."""
        def run(request: Request, body: Any) -> Any:
            s = self.sessions.get(request.path_params["sid"])
            with s.lock:
                return fn(s, request, body)
        return run

    def catalogue(self, request: Request, body: Any) -> Any:
        limits = self.limits
        return {"games": game_catalogue(), "agents": AGENT_EXAMPLES,
                "limits": {"max_sims": limits.max_sims, "max_time": limits.max_time,
                           "checkpoint_dirs": [str(d) for d in limits.checkpoint_dirs]}}

    def new_game(self, request: Request, body: Any) -> Any:
        s = self.sessions.add(Session.from_request(body, self.limits))
        return s.view(s.default_viewer())


# -- the endpoints of one game (run under its lock) ---------------------------------------------------------
def show(s: Session, request: Request, body: Any) -> Any:
    return s.view(viewer(s, request))


def play(s: Session, request: Request, body: Any) -> Any:
    b = body_dict(body)
    if "action" not in b:
        raise RequestError("play needs an 'action' (an action number)")
    s.play(b["action"], b.get("step"))
    return s.view(viewer(s, request, b))


def advance(s: Session, request: Request, body: Any) -> Any:
    b = body_dict(body)
    s.advance(b.get("step"))
    return s.view(viewer(s, request, b))


def undo(s: Session, request: Request, body: Any) -> Any:
    s.undo()
    return s.view(viewer(s, request, body))


def goto(s: Session, request: Request, body: Any) -> Any:
    b = body_dict(body)
    s.goto(b.get("step"))
    return s.view(viewer(s, request, b))


def open_view(s: Session, request: Request, body: Any) -> Any:
    b = body_dict(body)
    flag = b.get("open")
    if not isinstance(flag, bool):
        raise RequestError(f"open must be true or false, got {flag!r}")
    s.open_view = flag
    return s.view(viewer(s, request, b))


def inspect(s: Session, request: Request, body: Any) -> Any:
    b = body_dict(body)
    return s.inspect(b.get("spec"), b.get("step"), viewer(s, request, b))


def picture(s: Session, request: Request, body: Any) -> Any:
    try:
        step = int(request.path_params["step"])
    except ValueError:
        raise RequestError(f"step must be a number, got {request.path_params['step']!r}") from None
    png = s.picture_png(step, viewer(s, request))
    return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})


def replay(s: Session, request: Request, body: Any) -> Any:
    doc = s.replay_document()
    return JSONResponse(doc, headers={"Content-Disposition": f'attachment; filename="{s.game.name}-{s.id}.json"'})


def state(s: Session, request: Request, body: Any) -> Any:
    return Response(s.state_document(), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{s.game.name}-{s.id}-state.json"'})


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


def create_app(limits: Limits | None = None) -> Starlette:
    """The web app; ``limits`` bounds checkpoints and search (default: no checkpoint folder, the caps of
    :class:`Limits`)."""
    api = Api(limits or Limits())
    locked, computing = api.locked, api.computing
    g = "/api/games/{sid}"
    routes = [
        Route("/", index),
        Route("/api/games", guarded(api.catalogue), methods=["GET"]),
        Route("/api/games", guarded(api.new_game), methods=["POST"]),
        Route(g, guarded(locked(show)), methods=["GET"]),
        Route(g + "/play", guarded(locked(play)), methods=["POST"]),
        Route(g + "/advance", guarded(locked(computing(advance))), methods=["POST"]),
        Route(g + "/undo", guarded(locked(undo)), methods=["POST"]),
        Route(g + "/goto", guarded(locked(goto)), methods=["POST"]),
        Route(g + "/open", guarded(locked(open_view)), methods=["POST"]),
        Route(g + "/inspect", guarded(locked(computing(inspect))), methods=["POST"]),
        Route(g + "/picture/{step}.png", guarded(locked(picture)), methods=["GET"]),
        Route(g + "/replay.json", guarded(locked(replay)), methods=["GET"]),
        Route(g + "/state.json", guarded(locked(state)), methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.sessions = api.sessions
    app.state.limits = api.limits
    return app
