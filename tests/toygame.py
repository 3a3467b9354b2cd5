"""A tiny hidden-information card game used to test the game-independent machinery.

The packaged template game (meeplezoo.envs.template) plays the same rules; this copy stays the
tests' fixture: its name, messages and trajectories are fixed by many tests, and its determinize
shuffles the unseen cards in their true order, a leak that check_game's tests expect it to find.

Cards 1..9, two copies each, shuffled; each player holds two cards.  A turn is
two decisions of the same player: play a card from hand (actions 0..8 = value
1..9), then either bank it (action 9: add to own score) or attack with it
(action 10: subtract it from the score of the best other player).  The player
then draws if the deck is not empty.  The game ends when all hands are empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeplezoo.envs.core import CorruptStateError, Game, Layout, Option, Rng, State, as_rng


class ToyGame(Game):
    name = "toy"
    env_name = "toy_v0"
    pretty_name = "Toy"
    min_players = 2
    max_players = 4
    default_players = 2
    options_spec = (Option("hand_size", 2, "cards per hand", type=int, bounds=(1, 3)),)
    score_scale = 20.0
    hidden_information = True

    def _setup(self) -> None:
        self.num_actions = 11
        lay = Layout()
        lay.add("my_hand", 9)
        lay.add("scores", self.num_players)
        lay.add("phase", 2)
        lay.add("deck", 1)
        lay.add("pending", 9)
        self.observation_layout = lay.slices

    def new_state(self, seed: int | None = None) -> ToyState:
        rng = Rng(seed)
        deck = [v for v in range(1, 10) for _ in range(2)]
        rng.shuffle(deck)
        hands = [[deck.pop() for _ in range(self.options["hand_size"])] for _ in range(self.num_players)]
        return ToyState(self, deck, hands, [0] * self.num_players, 0, 0, rng)


class ToyState(State):
    def __init__(self, game: ToyGame, deck, hands, score, player, pending, rng) -> None:
        self.game = game
        self.deck = deck
        self.hands = hands
        self.score = score
        self.current_player = player
        self.pending = pending  # card played, awaiting bank/attack (0 = none)
        self.rng = rng

    def legal_mask(self) -> np.ndarray:
        m = np.zeros(11, dtype=bool)
        if self.current_player < 0:
            return m
        if self.pending:
            m[9] = m[10] = True
        else:
            for c in self.hands[self.current_player]:
                m[c - 1] = True
        return m

    def _apply(self, action: int) -> None:
        p = self.current_player
        if not self.pending:
            self.hands[p].remove(action + 1)
            self.pending = action + 1
            return
        if action == 9:
            self.score[p] += self.pending
        else:
            n = self.game.num_players
            target = max((q for q in range(n) if q != p), key=lambda q: (self.score[q], -q))
            self.score[target] -= self.pending
        self.pending = 0
        if self.deck:
            self.hands[p].append(self.deck.pop())
        n = self.game.num_players
        for k in range(1, n + 1):
            q = (p + k) % n
            if self.hands[q]:
                self.current_player = q
                return
        self.current_player = -1

    def is_terminal(self) -> bool:
        return self.current_player < 0

    def scores(self) -> list[float]:
        return [float(s) for s in self.score]

    def observe(self, player: int) -> np.ndarray:
        lay = self.game.observation_layout
        o = np.zeros(self.game.observation_shape, dtype=np.float32)
        h = o[lay["my_hand"]]
        for c in self.hands[player]:
            h[c - 1] += 0.5
        n = self.game.num_players
        o[lay["scores"]] = [(self.score[(player + k) % n] + 45) / 90 for k in range(n)]
        o[lay["phase"].start + (1 if self.pending else 0)] = 1.0
        o[lay["deck"]] = len(self.deck) / 18
        if self.pending:
            o[lay["pending"].start + self.pending - 1] = 1.0
        return o

    def determinize(self, player: int, rng: Any = None) -> ToyState:
        r = as_rng(rng)
        s = self.clone()
        pool = list(s.deck)
        for q in range(self.game.num_players):
            if q != player:
                pool += s.hands[q]
        r.shuffle(pool)
        for q in range(self.game.num_players):
            if q != player:
                k = len(s.hands[q])
                s.hands[q] = [pool.pop() for _ in range(k)]
        s.deck = pool
        s.rng = Rng(r.next64())
        return s

    def clone(self) -> ToyState:
        return ToyState(self.game, self.deck[:], [h[:] for h in self.hands], self.score[:], self.current_player,
                        self.pending, self.rng.clone())

    def _to_dict(self) -> dict[str, Any]:
        return {"deck": self.deck, "hands": self.hands, "score": self.score, "player": self.current_player,
                "pending": self.pending, "rng": self.rng.s}

    @classmethod
    def _from_dict(cls, game: Game, d: dict[str, Any]) -> ToyState:
        cards = sorted(d["deck"] + [c for h in d["hands"] for c in h] + ([d["pending"]] if d["pending"] else []))
        if len(d["hands"]) != game.num_players or any(not 1 <= c <= 9 for c in cards):
            raise CorruptStateError("toy: bad hands")
        r = Rng(int(d["rng"]))
        return cls(game, list(d["deck"]), [list(h) for h in d["hands"]], list(d["score"]), int(d["player"]),
                   int(d["pending"]), r)

    def action_name(self, action: int) -> str:
        if 0 <= action < 9:
            return f"play {action + 1}"
        return {9: "bank", 10: "attack"}.get(action, f"unknown action {action}")

    def render_text(self) -> str:
        lines = [f"deck {len(self.deck)}  to move: {self.current_player}  pending: {self.pending}"]
        for p in range(self.game.num_players):
            lines.append(f"player {p}: score {self.score[p]:3d}  hand {self.hands[p]}")
        return "\n".join(lines)


ToyGame.state_class = ToyState
ToyState._game_class = ToyGame


def toy_env_module():
    """A PettingZoo entry module equivalent for the toy game."""
    from meeplezoo.envs.core.aec import MeeplezooAECEnv, env_metadata, wrap_env

    class raw_env(MeeplezooAECEnv):
        game_cls = ToyGame
        metadata = env_metadata(ToyGame)

    def env(**kwargs):
        return wrap_env(raw_env(**kwargs))

    return env, raw_env
