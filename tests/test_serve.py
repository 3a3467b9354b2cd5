"""``meeplezoo serve``'s API through Starlette's TestClient: games, the inspector, hidden information, limits.

The browser side is in ``test_serve_browser.py``; here every answer is checked against the engine and the
agents' own API, and every refused request is checked to leave the game as it was.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import meeplezoo
from meeplezoo.agents.network import masked_softmax
from meeplezoo.agents.registry import make
from meeplezoo.cli import build_parser
from meeplezoo.envs.core.replay import states_from_replay
from meeplezoo.serve import Limits, RequestError, create_app
from meeplezoo.serve.session import Session

GAMES = ("kerala", "haus_der_sonne", "hawaii", "asara")
HIDDEN = ("hawaii", "asara")


@pytest.fixture
def client(tmp_path):
    (tmp_path / "allowed").mkdir()
    app = create_app(Limits([tmp_path / "allowed"], max_sims=500, max_time=2.0))
    with TestClient(app) as c:
        c.app_ = app
        c.allowed = tmp_path / "allowed"
        yield c


def new(client, game="kerala", seats=("human", "random"), seed=3, **extra):
    r = client.post("/api/games", json={"game": game, "seats": list(seats), "seed": seed, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def session(client, view) -> Session:
    return client.app_.state.sessions.get(view["id"])


def run_to_end(client, v):
    """The human plays its first legal action, the agent answers, until the game ends."""
    while not v["terminal"]:
        if v["human_to_move"]:
            r = client.post(f"/api/games/{v['id']}/play", json={"action": v["legal"][0]["action"], "step": v["step"]})
        else:
            r = client.post(f"/api/games/{v['id']}/advance", json={"step": v["step"]})
        assert r.status_code == 200, r.text
        v = r.json()
    return v


# -- the catalogue and whole games ----------------------------------------------------------------
def test_catalogue_lists_every_game_with_its_options(client):
    data = client.get("/api/games").json()
    games = {g["id"]: g for g in data["games"]}
    assert set(games) == set(meeplezoo.list_envs())
    assert games["kerala"]["max_players"] == 5 and games["asara"]["hidden_information"]
    variant = next(o for o in games["haus_der_sonne"]["options"] if o["name"] == "variant")
    assert variant["choices"] == ["base", "tactical"]
    assert "pretrained" in data["agents"] and data["limits"]["max_sims"] == 500
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_and_its_replay(client, game):
    v = new(client, game, seed=7)
    assert v["step"] == 0 and v["to_move"] is not None and bool(v["legal"]) == (v["to_move"] == 0)
    v = run_to_end(client, v)
    s = session(client, v)
    assert v["result"]["scores"] == s.states[-1].scores() and v["last"] == len(s.actions)
    # the replay document plays back to the same end
    doc = client.get(f"/api/games/{v['id']}/replay.json").json()
    g, states = states_from_replay(doc)
    assert states[-1].scores() == s.states[-1].scores() and doc["agents"] == ["human", "random"]
    # and starts a new game at its end, whose history can be walked
    w = client.post("/api/games", json={"replay": doc, "seats": ["human", "random"]}).json()
    assert w["terminal"] and w["last"] == v["last"]
    w = client.post(f"/api/games/{w['id']}/goto", json={"step": 0}).json()
    assert w["step"] == 0 and not w["terminal"]
    png = client.get(w["picture"])
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_options_and_players_reach_the_game(client):
    v = new(client, "haus_der_sonne", seats=["human", "heuristic"], options={"variant": "tactical"})
    assert session(client, v).game.options["variant"] == "tactical" and v["config"] == {"variant": "tactical"}
    v = new(client, "kerala", seats=["human", "random", "heuristic"], num_players=3)
    assert v["num_players"] == 3 and session(client, v).game.num_players == 3


def agents_move(client, v):
    """Let the agents play until a human is to move (or the game ends)."""
    while not v["terminal"] and not v["human_to_move"]:
        v = client.post(f"/api/games/{v['id']}/advance", json={}).json()
    return v


def test_undo_history_and_playing_from_an_earlier_position(client):
    v = new(client, "kerala", seats=["human", "heuristic"], seed=5)
    sid = v["id"]
    for _ in range(4):
        v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][0]["action"]}).json()
        v = agents_move(client, v)
    s = session(client, v)
    last, before = v["last"], list(s.actions)
    assert last >= 4 and v["human_to_move"]
    # undo: back to the human's previous decision, the agents' moves after it undone too
    v = client.post(f"/api/games/{sid}/undo").json()
    k = v["last"]
    assert v["step"] == k < last and s.actions == before[:k] and v["human_to_move"]
    assert all(s.states[i].current_player == 1 for i in range(k + 1, last))
    # looking back changes nothing
    v = client.post(f"/api/games/{sid}/goto", json={"step": 1}).json()
    assert v["step"] == 1 and v["last"] == k and s.actions == before[:k]
    # a move at an earlier position starts a new line from there
    human_step = next(i for i in range(k) if s.states[i].current_player == 0 and len(s.states[i].legal_actions()) > 1)
    v = client.post(f"/api/games/{sid}/goto", json={"step": human_step}).json()
    other = [a["action"] for a in v["legal"] if a["action"] != before[human_step]][0]
    v = client.post(f"/api/games/{sid}/play", json={"action": other, "step": human_step}).json()
    assert v["last"] == human_step + 1 and s.actions == [*before[:human_step], other]


def test_a_saved_position_starts_a_game(client):
    game = meeplezoo.make_game("kerala")
    state = game.new_state(9)
    for a in (state.legal_actions()[0], ):
        state.apply(a)
    v = client.post("/api/games", json={"state": state.to_json(), "seats": ["random", "human"]}).json()
    s = session(client, v)
    assert s.states[0].to_json() == state.to_json() and v["to_move"] == state.current_player
    assert not v["can_save_replay"]  # no seed: it is saved as a position
    assert client.get(f"/api/games/{v['id']}/state.json").json() == json.loads(state.to_json())


# -- the inspector equals the agents' own API ---------------------------------------------------------
@pytest.mark.parametrize("game", ["kerala", "asara"])
def test_inspector_numbers_are_the_agents_own(client, game):
    v = new(client, game, seats=["human", "heuristic"], seed=2)
    sid = v["id"]
    v = agents_move(client, v)
    for _ in range(2):  # a position a few moves in
        v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][-1]["action"]}).json()
        v = agents_move(client, v)
    s = session(client, v)
    state, step = s.states[v["step"]], v["step"]
    p = state.current_player
    legal = state.legal_actions()

    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "pretrained:sims=40", "step": step}).json()
    agent = make("pretrained:sims=40", s.game, num_players=2, seed=step)
    net = agent.network
    logits, values = net.forward(net.observe(state, p))
    prior = masked_softmax(logits, state.legal_mask()[None])[0]
    result = agent.search(state.clone(), observation=state.observe(p), action_mask=state.legal_mask())
    rows = {a["action"]: a for a in r["actions"]}
    assert sorted(rows) == sorted(legal)
    for a in legal:
        assert rows[a]["prior"] == pytest.approx(float(prior[a]), abs=1e-7)
        assert rows[a]["visits"] == int(result.visits[a])
        assert rows[a]["share"] == pytest.approx(result.visits[a] / result.visits.sum())
        if result.visits[a]:
            assert rows[a]["value"] == pytest.approx(float(result.values[a]))
    assert r["choice"] == result.action and r["simulations"] == result.simulations
    assert r["seat_values"] == pytest.approx(list(np.roll(values[0], p)), abs=1e-6)
    heuristic = make("heuristic", s.game, num_players=2, seed=step)
    assert r["heuristic_choice"] == heuristic.act(state.observe(p), state.legal_mask(), state=state.clone())

    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "heuristic", "step": step}).json()
    scores = make("heuristic", s.game, num_players=2, seed=step).action_scores(state, legal)
    assert [a["score"] for a in r["actions"]] == pytest.approx([float(x) for x in scores])
    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "pretrained", "step": step}).json()
    assert r["choice"] == int(legal[int(np.argmax(prior[legal]))]) and "visits" not in r["actions"][0]
    # inspecting plays nothing
    assert client.get(f"/api/games/{sid}").json()["last"] == v["last"]


def test_inspector_on_an_earlier_position(client):
    v = new(client, "kerala", seats=["human", "heuristic"], seed=1)
    sid = v["id"]
    v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][0]["action"]}).json()
    v = agents_move(client, v)
    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "mcts:sims=30", "step": 1}).json()
    s = session(client, v)
    agent = make("mcts:sims=30", s.game, num_players=2, seed=1)
    p = s.states[1].current_player
    res = agent.search(s.states[1].clone(), observation=s.states[1].observe(p), action_mask=s.states[1].legal_mask())
    assert r["step"] == 1 and r["player"] == p and r["choice"] == res.action and s.last > 1
    assert [a["visits"] for a in r["actions"]] == [int(res.visits[a]) for a in s.states[1].legal_actions()]


# -- hidden information ---------------------------------------------------------------------------------
def _hidden_lines(state, viewer):
    """Lines of the other seats' own views that the viewer's view does not have (their hands)."""
    mine = set(state.observation_string(viewer).splitlines())
    out = []
    for p in range(state.game.num_players):
        if p != viewer:
            out += [line for line in state.observation_string(p).splitlines()
                    if line not in mine and not line.startswith("View of")]
    return out


@pytest.mark.parametrize("game", HIDDEN)
def test_a_human_seat_sees_only_its_own_information(client, game):
    v = new(client, game, seats=["human", "heuristic"], seed=4)
    sid = v["id"]
    s = session(client, v)
    checked = 0
    for i in range(24):
        if v["terminal"]:
            break
        if v["human_to_move"]:
            v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][-1]["action"]}).json()
        else:
            v = client.post(f"/api/games/{sid}/advance", json={}).json()
        view = client.get(f"/api/games/{sid}?seat=0").json()
        text = json.dumps(view)
        state = s.states[view["step"]]
        for line in _hidden_lines(state, 0):
            assert line.strip() not in text, f"seat 0's page shows {line!r}"
            checked += 1
        if view["to_move"] == 1:
            assert view["legal"] == []  # the agent's options would show its hand
        # the page is the same for any other hidden holdings of the other seat
        twin = Session(s.game, ["human", "random"], s.limits, start=state.determinize(0, np.random.default_rng(1)))
        mine, theirs = dict(view), twin.view(0)
        for k in ("id", "picture", "history", "last", "step", "seats"):
            mine.pop(k)
            theirs.pop(k)
        assert mine == theirs
        if i % 4 == 0:
            assert s.picture_png(view["step"], 0) == twin.picture_png(0, 0)
    if game == "asara":
        assert checked > 0  # the other hand was there to hide
    # other seats' moves are named only as far as seat 0 can tell them apart
    for h in client.get(f"/api/games/{sid}?seat=0").json()["history"]:
        if h["player"] == 1:
            assert "face down" not in h["name"] or "hidden" in h["name"]
    # the analysis view shows everything, and says so
    v = client.post(f"/api/games/{sid}/open", json={"open": True, "seat": 0}).json()
    assert v["open_view"]
    for line in _hidden_lines(s.states[v["step"]], 0):
        assert line.strip() in v["text"]


def _with_other_holdings(state, game: str):
    """The position with seat 1's holdings that an option hides from seat 0 changed (Hawaii's resources with
    ``resources_public`` off, Asara's money with ``human_realistic_obs``)."""
    doc = json.loads(state.to_json())
    if game == "hawaii":
        doc["state"]["res"][1] = [x + k for x, k in zip(doc["state"]["res"][1], (7, 3, 2))]
    else:
        doc["state"]["money"][1] += 17
    return type(state).from_json(json.dumps(doc))


@pytest.mark.parametrize("game, options", [("hawaii", {"resources_public": False}),
                                           ("asara", {"human_realistic_obs": True})])
def test_holdings_an_option_hides_stay_hidden_on_the_page_and_picture(client, game, options):
    """A determinization keeps other players' resources (a player could count them), but these options hide
    them from the observation: the seat's page, text and picture are the same whatever the other seat holds,
    and the picture still shows the board (with its clickable places), not a text view."""
    v = agents_move(client, new(client, game, seats=["human", "heuristic"], seed=5, options=options))
    s = session(client, v)
    for _ in range(4):  # four decisions of the human seat, each against other holdings of seat 1
        state = s.states[v["step"]]
        twin_state = _with_other_holdings(state, game)
        assert not np.array_equal(state.render_rgb(), twin_state.render_rgb()), "the full picture shows them"
        twin = Session(s.game, ["human", "heuristic"], s.limits, start=twin_state)
        mine, theirs = client.get(f"/api/games/{v['id']}?seat=0").json(), twin.view(0)
        assert mine["regions"] and mine["text"] == theirs["text"]
        for k in ("id", "picture", "history", "last", "step", "seats"):
            mine.pop(k)
            theirs.pop(k)
        assert mine == theirs
        png = client.get(f"/api/games/{v['id']}/picture/{v['step']}.png?seat=0").content
        assert png == twin.picture_png(0, 0)
        assert s.picture_is_public(v["step"], 0), "the board itself is drawn, without the hidden holdings"
        r = client.post(f"/api/games/{v['id']}/play", json={"action": v["regions"][-1]["actions"][0],
                                                              "step": v["step"]})
        assert r.status_code == 200, r.text
        v = agents_move(client, r.json())
        while not v["terminal"] and not v["regions"]:  # on to the next decision with a place to click
            r = client.post(f"/api/games/{v['id']}/play", json={"action": v["legal"][0]["action"], "step": v["step"]})
            v = agents_move(client, r.json())
    # the analysis view shows them
    assert not v["terminal"]
    twin = Session(s.game, ["human", "heuristic"], s.limits, start=_with_other_holdings(s.states[v["step"]], game))
    assert client.get(f"/api/games/{v['id']}/picture/{v['step']}.png?seat=0").content == twin.picture_png(0, 0)
    client.post(f"/api/games/{v['id']}/open", json={"open": True, "seat": 0})
    twin.open_view = True
    assert client.get(f"/api/games/{v['id']}/picture/{v['step']}.png?seat=0&open=1").content \
        != twin.picture_png(0, 0)


def test_hidden_choices_of_others_are_not_named(client):
    game = meeplezoo.make_game("asara")
    limits = Limits([])
    for seed in range(30):  # a game where the other seat lays a face-down pair
        s = Session(game, ["human", "random"], limits, seed=seed)
        while not s.states[-1].is_terminal():
            st = s.states[-1]
            s.advance() if st.current_player == 1 else s.play(st.legal_actions()[seed % len(st.legal_actions())])
            if st.current_player == 1 and "face down" in st.action_name(s.actions[-1]):
                name = s.move_name(s.last - 1, 0)
                assert "face down" not in name and "hidden choice" in name
                assert s.move_name(s.last - 1, 1) == st.action_name(s.actions[-1])  # its own move, by name
                return
    pytest.fail("no face-down pair was laid in 30 games")


def test_inspector_of_another_seats_hidden_decision_needs_the_analysis_view(client):
    v = new(client, "asara", seats=["human", "heuristic"], seed=4)
    sid = v["id"]
    while v["to_move"] == 0:
        v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][0]["action"]}).json()
    assert v["to_move"] == 1
    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "heuristic", "seat": 0})
    assert r.status_code == 400 and "analysis view" in r.json()["error"]
    client.post(f"/api/games/{sid}/open", json={"open": True})
    r = client.post(f"/api/games/{sid}/inspect", json={"spec": "heuristic", "seat": 0})
    assert r.status_code == 200 and r.json()["player"] == 1


def test_a_replay_is_saved_only_when_it_gives_nothing_away(client):
    v = new(client, "asara", seats=["human", "random"])
    r = client.get(f"/api/games/{v['id']}/replay.json")
    assert r.status_code == 400 and "analysis view" in r.json()["error"] and not v["can_save_replay"]
    assert client.get(f"/api/games/{v['id']}/state.json").status_code == 400
    v = new(client, "kerala", seats=["human", "random"])  # nothing hidden in Kerala
    assert v["can_save_replay"] and client.get(f"/api/games/{v['id']}/replay.json").status_code == 200


# -- bad requests: a clear error, and the game as it was ----------------------------------------------------
def test_bad_requests_leave_the_game_unchanged(client):
    v = new(client, "kerala", seats=["human", "random"])
    sid = v["id"]
    v = client.post(f"/api/games/{sid}/play", json={"action": v["legal"][0]["action"]}).json()
    v = agents_move(client, v)
    before = client.get(f"/api/games/{sid}").json()
    assert before["human_to_move"] and before["last"] > 1
    illegal = next(a for a in range(session(client, v).game.num_actions)
                   if a not in {x["action"] for x in before["legal"]})
    bad = [
        ("play", {"action": illegal}, f"action {illegal}"),
        ("play", {"action": 10 ** 9}, "does not exist"),
        ("play", {"action": "buy everything"}, "action number"),
        ("play", {}, "needs an 'action'"),
        ("play", {"action": before["legal"][0]["action"], "step": 0}, "reload"),
        ("advance", {}, "human seat"),
        ("goto", {"step": 99}, "step must be"),
        ("inspect", {"spec": "mcts:sims=lots"}, "sims"),
        ("inspect", {"spec": "mcts:sims=100000"}, "cap of 500"),
        ("inspect", {"spec": "mcts:time=60"}, "cap of 2.0"),
        ("inspect", {"spec": "os:system"}, "not allowed"),
        ("inspect", {"spec": "sb3:model.zip"}, "not allowed"),
        ("inspect", {"spec": "mcts:rollout=netmcts"}, "rollout"),
        ("inspect", {"spec": ""}, "non-empty"),
        ("inspect", {"spec": "net:/etc/passwd.zip"}, "outside the allowed folders"),
        ("inspect", {"spec": "net:../../secret.zip"}, "outside the allowed folders"),
        ("inspect", {"spec": "net:missing.zip"}, "not found"),
        ("inspect", {"spec": "heuristic:bogus=1"}, "unknown option"),
        ("open", {"open": "yes"}, "true or false"),
    ]
    for path, body, message in bad:
        r = client.post(f"/api/games/{sid}/{path}", json=body)
        assert r.status_code == 400, (path, body, r.text)
        assert message in r.json()["error"], (path, body, r.json()["error"])
        assert client.get(f"/api/games/{sid}").json() == before, (path, body)
    r = client.post(f"/api/games/{sid}/play", content=b"{not json")
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    assert client.get("/api/games/nope").status_code == 404
    assert client.get(f"/api/games/{sid}").json() == before


def test_bad_new_games_are_refused_with_the_reason(client):
    cases = [
        ({"game": "chess", "seats": ["human", "random"]}, "unknown game 'chess'"),
        ({"game": "kerala", "num_players": 9, "seats": ["human"] * 9}, "num_players=9"),
        ({"game": "kerala", "seats": ["human"]}, "seats must list 2"),
        ({"game": "kerala", "seats": ["human", "mcts:sims=-3"]}, "seat 1"),
        ({"game": "kerala", "seats": ["human", "net:/etc/passwd.zip"]}, "outside the allowed folders"),
        ({"game": "kerala", "seats": ["human", "human:x"]}, "not allowed"),
        ({"game": "kerala", "options": {"board_radius": "big"}, "seats": ["human", "random"]}, "board_radius"),
        ({"game": "kerala", "seed": -1, "seats": ["human", "random"]}, "seed"),
        ({"replay": {"game": "kerala", "config": {}, "seed": 1, "actions": [10 ** 6]}, "seats": ["human", "random"]},
         "not legal"),
        ({"replay": {"game": "chess"}, "seats": ["human", "random"]}, "unknown game"),
        ({"state": "{}", "seats": ["human", "random"]}, "unknown game"),
    ]
    for body, message in cases:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)
    assert len(client.app_.state.sessions._by_id) == 0


def test_checkpoints_from_the_allowed_folder_are_played(client):
    import shutil

    from meeplezoo.agents.pretrained import checkpoint_path

    shutil.copy(checkpoint_path("kerala", 2), client.allowed / "k.zip")
    v = new(client, "kerala", seats=["human", "net:k.zip"])
    assert v["seats"][1]["spec"] == f"net:{client.allowed / 'k.zip'}"
    r = client.post(f"/api/games/{v['id']}/inspect", json={"spec": f"netmcts:{client.allowed}/k.zip:sims=20"})
    assert r.status_code == 200 and r.json()["simulations"] == 20


def test_limits_refuse_without_a_folder():
    with pytest.raises(RequestError, match="allows no checkpoint folder"):
        Limits([]).agent_spec("net:runs/x.zip")


def test_cli_serve_defaults_to_localhost():
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.checkpoints is None
    args = build_parser().parse_args(["serve", "--port", "9000", "--host", "0.0.0.0", "--checkpoints", "a"])
    assert args.port == 9000 and args.host == "0.0.0.0" and args.checkpoints == ["a"]


@pytest.mark.parametrize("game", GAMES)
def test_board_places_are_targets_on_the_picture_for_the_seat_to_move(client, game):
    """Every region is a box on the picture with the legal actions that point there (all of them that the
    renderer places), each action in one region only; in a hidden-information game another seat, not to
    move, gets none (in an open game every seat sees the same page)."""
    v = new(client, game, seats=["human", "heuristic"], seed=3)
    v = agents_move(client, v)
    s = session(client, v)
    state = s.states[v["step"]]
    assert v["regions"], f"{game}: the first decision of the human names places on the board"
    h, w = state.render_rgb().shape[:2]
    boxes = state.game.renderer().action_regions(state)
    seen = []
    for r in v["regions"]:
        x0, y0, x1, y1 = r["box"]
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        assert r["names"] == [state.action_name(a) for a in r["actions"]]
        for a in r["actions"]:
            assert state.legal_mask()[a] and tuple(boxes[a]) == (x0, y0, x1, y1)
        seen += r["actions"]
    assert sorted(seen) == sorted(boxes) and len(seen) == len(set(seen))
    other = client.get(f"/api/games/{v['id']}?seat=1").json()
    if game in HIDDEN:  # not seat 1's move: nothing to click
        assert other["regions"] == [] and other["legal"] == []
    else:
        assert other["regions"] == v["regions"]


@pytest.mark.parametrize("argv, message", [(["--port", "0"], "--port"), (["--port", "http"], "--port"),
                                           (["--max-sims", "0"], "--max-sims"), (["--max-time", "nan"], "--max-time")])
def test_cli_serve_refuses_bad_numbers(argv, message, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *argv])
    assert message in capsys.readouterr().err
