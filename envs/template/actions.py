"""The action codec: flat action ids <-> moves, and their names.

A turn is two decisions: play a card (ids 0..8, the card's value minus one),
then bank it or attack with it.
"""

from .components import CARD_VALUES

PLAY = 0  # PLAY + value - 1: play the card of that value from hand
BANK = len(CARD_VALUES)  # add the played card to one's own score
ATTACK = BANK + 1  # subtract it from the leading other player's score
NUM_ACTIONS = ATTACK + 1


def play_action(value: int) -> int:
    return PLAY + value - 1


def card_of(action: int) -> int:
    return action - PLAY + 1


def action_name(action: int) -> str:
    if PLAY <= action < BANK:
        return f"play {card_of(action)}"
    return {BANK: "bank", ATTACK: "attack"}.get(action, f"unknown action {action}")
