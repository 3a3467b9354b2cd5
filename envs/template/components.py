"""Static data of the template game: the cards and the option bounds.  No logic here."""

#: card values 1..9, each twice in the deck
CARD_VALUES = tuple(range(1, 10))
COPIES = 2
DECK = tuple(v for v in CARD_VALUES for _ in range(COPIES))

#: cards dealt to each player at the start (the ``hand_size`` option)
DEFAULT_HAND_SIZE = 2
HAND_SIZE_BOUNDS = (1, 3)

MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 2, 4, 2

#: scores stay within +-45 (every card banked by one player, or attacked against one); the observation
#: and the "score" reward are scaled by these
SCORE_BOUND = sum(DECK) // 2
SCORE_SCALE = 20.0
