"""The rules engine of the template game: the Game (static facts) and the State (the position).

Rules.  A deck of cards 1..9, two copies each, is shuffled; each player is dealt
``hand_size`` cards.  On a turn a player plays a card from hand, then either
banks it (adds its value to their own score) or attacks with it (subtracts its
value from the score of the leading other player, the earlier seat on a tie),
then draws a card if the deck is not empty.  Turns pass to the next player with
cards in hand; the game ends when every hand is empty.  Highest score wins.

Hidden information: the other players' hands and the deck order.  Chance: the
shuffle at the start (draws take the deck's top card, so the deck order, drawn
by the state's own generator at setup, is the only chance).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.fields import Int, IntList, Nested, RngField, StateSchema
from ..core.game import CorruptStateError, Game, Option, State, readonly
from ..core.rng import Rng, as_rng
from . import actions as A
from . import components as C


class TemplateGame(Game):
    name = "template"
    env_name = "template_v0"
    pretty_name = "Template"
    min_players = C.MIN_PLAYERS
    max_players = C.MAX_PLAYERS
    default_players = C.DEFAULT_PLAYERS
    options_spec = (Option("hand_size", C.DEFAULT_HAND_SIZE, "cards dealt to each player", type=int,
                           bounds=C.HAND_SIZE_BOUNDS),)
    score_scale = C.SCORE_SCALE
    hidden_information = True
    # looked up when first needed, so this module imports neither
    observer_ref = ".observation:TemplateObserver"
    renderer_ref = ".render"

    def _setup(self) -> None:
        self.num_actions = A.NUM_ACTIONS


def _players(game: Game) -> int:
    return game.num_players


#: every field of a position, declared once: clone, JSON save/load and the per-field checks follow
SCHEMA = StateSchema("template", [
    IntList("deck", None, min(C.CARD_VALUES), max(C.CARD_VALUES), max_length=len(C.DECK),
            doc="the cards not yet drawn; the top card is the last"),
    Nested("hands", (_players, None), min(C.CARD_VALUES), max(C.CARD_VALUES), doc="each player's cards"),
    IntList("score", _players, -C.SCORE_BOUND, C.SCORE_BOUND, doc="each player's score"),
    Int("current_player", -1, lambda g: g.num_players - 1, doc="who decides; -1 once the game is over"),
    Int("pending", 0, max(C.CARD_VALUES), doc="the card played, awaiting bank or attack (0: none)"),
    RngField(doc="the chance stream (unused after the setup shuffle; kept for determinize)"),
])


class TemplateState(State):
    """A position: the fields of :data:`SCHEMA` (tests set them with :meth:`from_position`)."""

    schema = SCHEMA
    __slots__ = ("game", "deck", "hands", "score", "current_player", "pending", "rng")

    @classmethod
    def initial(cls, game: Game, seed: int | None = None) -> TemplateState:
        """Shuffle the deck and deal ``hand_size`` cards to each player; the first seat starts."""
        s = cls.__new__(cls)
        s.game = game
        s.rng = Rng(seed)
        s.deck = list(C.DECK)
        s.rng.shuffle(s.deck)
        s.hands = [[s.deck.pop() for _ in range(game.options["hand_size"])] for _ in range(game.num_players)]
        s.score = [0] * game.num_players
        s.current_player = 0
        s.pending = 0
        return s

    # -- rules ---------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        m = np.zeros(A.NUM_ACTIONS, dtype=bool)
        if self.current_player >= 0:
            if self.pending:
                m[A.BANK] = m[A.ATTACK] = True
            else:
                for c in self.hands[self.current_player]:
                    m[A.play_action(c)] = True
        return readonly(m)

    def _apply(self, action: int) -> None:
        p = self.current_player
        if not self.pending:
            self.hands[p].remove(A.card_of(action))
            self.pending = A.card_of(action)
            return
        if action == A.BANK:
            self.score[p] += self.pending
        else:
            self.score[self.attack_target(p)] -= self.pending
        self.pending = 0
        if self.deck:
            self.hands[p].append(self.deck.pop())
        self.pass_turn(p)

    def attack_target(self, player: int) -> int:
        """The leading other player (the earlier seat on a tie)."""
        n = self.game.num_players
        return max((q for q in range(n) if q != player), key=lambda q: (self.score[q], -q))

    def pass_turn(self, player: int) -> None:
        n = self.game.num_players
        for k in range(1, n + 1):
            q = (player + k) % n
            if self.hands[q]:
                self.current_player = q
                return
        self.current_player = -1

    def is_terminal(self) -> bool:
        return self.current_player < 0

    def scores(self) -> list[float]:
        return [float(s) for s in self.score]

    def check_invariants(self) -> list[str]:
        """Broken invariants (empty when sound): every card is in the deck, a hand or played, exactly once."""
        cards = sorted(self.deck + [c for h in self.hands for c in h] + ([self.pending] if self.pending else []))
        errors = []
        if any(cards.count(v) > C.COPIES for v in C.CARD_VALUES) or any(c not in C.CARD_VALUES for c in cards):
            errors.append(f"cards not a sub-multiset of the deck: {cards}")
        if any(len(h) > self.game.options["hand_size"] for h in self.hands):
            errors.append("a hand holds more cards than were dealt")
        if self.current_player >= 0 and not self.hands[self.current_player] and not self.pending:
            errors.append(f"player {self.current_player} is to play but holds no card")
        return errors

    def validate(self) -> None:
        """What the schema cannot say: the cards are conserved and the player to move can move."""
        errors = self.check_invariants()
        if errors:
            raise CorruptStateError(f"template: {'; '.join(errors)}")

    # -- information (observe: the game's observer) ------------------------------
    def determinize(self, player: int, rng: Any = None) -> TemplateState:
        """Deal the cards ``player`` cannot see (other hands and the deck) anew, and re-seed chance."""
        r = as_rng(rng)
        s = self.clone()
        pool = list(s.deck)
        for q in range(self.game.num_players):
            if q != player:
                pool += s.hands[q]
        pool.sort()  # what is resampled depends only on what the player may know, not on the true order
        r.shuffle(pool)
        for q in range(self.game.num_players):
            if q != player:
                s.hands[q] = [pool.pop() for _ in range(len(s.hands[q]))]
        s.deck = pool
        s.rng = Rng(r.next64())
        return s

    # -- copies and persistence: clone, _to_dict and _from_dict follow from SCHEMA --------

    # -- display (render_text, observation_string, render_rgb: the game's renderer) --
    def action_name(self, action: int) -> str:
        return A.action_name(action)


TemplateGame.state_class = TemplateState
TemplateState._game_class = TemplateGame
