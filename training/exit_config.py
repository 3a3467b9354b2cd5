"""The configuration of expert iteration (:mod:`.exit`): its knobs and the checks between them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from meeplezoo.agents.network import LEAF_KINDS, POOLED_PASSES
from meeplezoo.agents.registry import HEURISTICS
from meeplezoo.agents.search import NETWORK_SEARCH_KNOBS
from meeplezoo.agents.seat_layout import SEAT_ARCHITECTURE, SEAT_CONFIG_KEYS
from meeplezoo.knobs import is_int, knob
from meeplezoo.registry import game_class, make_game

from .inference import DEVICE_FORMS, PRECISIONS, check_device
from .run import TrainerConfig, shared
from .selfplay import parse_weighted_specs

#: the opponent kinds of a self-play seat
OPPONENT_KINDS = ("self", "heuristic", "snapshot")
#: the reward modes whose returns fit a tanh value head
VALUE_REWARD_MODES = ("win", "rank")
#: the networks expert iteration trains: a block network (one player count) or a seat network (several)
ARCHITECTURES = ("block", SEAT_ARCHITECTURE)
#: the policy targets of the expert's decisions: its visit counts, or the Gumbel root's improved policy
POLICY_TARGETS = ("visits", "improved")
#: what the config's own fields set, so ``search_options`` cannot
_OWN_SEARCH_KNOBS = {"prior", "sims", "time", "batch", "c", "fpu", "reward_mode", "leaf"}


def _weights(value: Any) -> dict[str, float]:
    return parse_weighted_specs(value) if value else {}


def _show_weights(value: Mapping[str, float]) -> str:
    return ",".join(f"{k}:{w:g}" for k, w in value.items())


def _counts(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    try:
        counts = sorted({int(str(n).strip()) for n in items})
    except (TypeError, ValueError):
        raise ValueError(f"must be player counts such as 2,3,4, got {value!r}") from None
    if not counts or counts[0] < 1:
        raise ValueError(f"must be player counts such as 2,3,4, got {value!r}")
    return tuple(counts)


def _seat_widths(value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise ValueError(f"must be a mapping of seat network widths, got {value!r}")
    bad = sorted(set(value) - set(SEAT_CONFIG_KEYS))
    if bad:
        raise ValueError(f"unknown seat network width(s) {bad}; known: {', '.join(SEAT_CONFIG_KEYS)}")
    wrong = [k for k, v in value.items() if not is_int(v) or v < (0 if k in ("channels", "action_hidden") else 1)]
    if wrong:
        raise ValueError(f"seat network widths {wrong} must be ints >= 1 (channels, action_hidden: >= 0)")
    return {k: int(v) for k, v in value.items()}


def _search_options(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"must be a mapping of mcts options, got {value!r}")
    own = sorted(set(value) & _OWN_SEARCH_KNOBS)
    if own:
        raise ValueError(f"cannot set {own}: they are fields of the config")
    return dict(value)


@dataclass(frozen=True)
class ExItConfig(TrainerConfig, algo="exit", grows=("iterations",), start_only=("init",)):
    """Everything that defines an expert-iteration run (saved as ``config.json``)."""

    iterations: int = knob(10, "self-play + training iterations in all (a continued run goes on to this many)",
                           low=1)
    games_per_iteration: int = knob(8, "self-play games per iteration", low=1)
    sims: int = knob(64, "search simulations per expert decision", low=1)
    batch: int = knob(1, "leaves per network call; 1 keeps the visit targets exact", low=1)
    games_at_once: int = knob(8, "self-play games each worker plays at once in lockstep, their leaves "
                              "evaluated in one network call (the samples do not depend on it)", low=1)
    inference: str = knob("numpy", "what evaluates the network in self-play: numpy (exact with inference_pass "
                          "rows: the samples do not depend on games_at_once) or torch", choices=("numpy", "torch"))
    inference_pass: str = knob("rows", "how numpy evaluates the lockstep games' pooled leaves: rows (each "
                               "position as alone; the samples do not depend on games_at_once or the workers) "
                               "or batch (one matrix product: cheaper per position; the samples the same in "
                               "distribution, a rare decision may differ)", choices=POOLED_PASSES)
    inference_device: str = knob("cpu", "where self-play's network runs: cpu, cuda, cuda:N or auto (cuda when "
                                 "torch sees a GPU); a GPU means torch", check=check_device, what=DEVICE_FORMS)
    inference_precision: str = knob("float32", "self-play's network float type in torch: float32, bfloat16 or "
                                    "float16 (GPU only)", choices=PRECISIONS)
    c: float = knob(1.5, "the expert's PUCT exploration constant", low=0)
    fpu: float = knob(0.2, "the expert's first-play urgency reduction", low=0)
    explore_moves: int = knob(8, "decisions per seat sampled from the visit counts before playing the most "
                              "visited", low=0)
    leaf: str = knob("network", "how the expert values leaves: the value head, or rollouts (search options)",
                     choices=LEAF_KINDS)
    search_options: dict[str, Any] = knob({}, "an mcts option of every searching seat, e.g. rollout=heuristic, "
                                          "rollout_depth=20", check=_search_options, repeat=True,
                                          flag="--search-option")
    policy_target: str = knob("visits", "the policy target of each expert decision (and what its first "
                              "explore_moves are sampled from): the root's visit counts, or improved, the Gumbel "
                              "root's improved policy (needs --search-option root=gumbel)", choices=POLICY_TARGETS)
    full_search_fraction: float = knob(
        1.0, "playout cap randomization (KataGo): the share of the searching seats' decisions searched at sims "
        "and kept as samples; the others are searched at fast_sims, played and not kept, and a snapshot's seat "
        "searches at fast_sims (1: every decision in full)", low=0, low_open=True, high=1)
    fast_sims: int = knob(16, "simulations of a decision not searched in full (full_search_fraction < 1)", low=1)
    opponents: dict[str, float] | None = knob(
        None, "weights of the other seats' kinds: self, heuristic, snapshot (default self:0.5,heuristic:0.25,"
        "snapshot:0.25; self:0.75,snapshot:0.25 without a heuristic)", type=object, check=_weights,
        show=_show_weights, flag="--exit-opponents", metavar="KIND:W,...")
    reward_mode: str = knob("win", "the value target, the returns the value head learns and the search backs up "
                            "(tanh: win, 1/k to each of k first places and -1/(n-k) to the others; or rank)",
                            choices=VALUE_REWARD_MODES)
    architecture: str = knob("block", "the network: block (one player count) or seatnet (one network for every "
                             "count of --players)", choices=ARCHITECTURES)
    player_counts: tuple[int, ...] | None = knob(
        None, "the player counts self-play draws from, one per game (--players 2,3,4: every count listed; "
        "default num_players alone)", type=object, check=_counts, cli=False)
    seat_widths: dict[str, int] = knob({}, "a width of the seat network, e.g. trunk_hidden=96 (default the "
                                       "game's, training/seatnet.py)", check=_seat_widths, repeat=True,
                                       flag="--seat-width", metavar="NAME=INT")
    warm_start_games: int = knob(0, "games of the teacher imitated before the first iteration", low=0)
    warm_start_epochs: int = knob(4, "passes over the warm-start games", low=0)
    warm_start_teacher: str = knob("heuristic", "who plays the warm-start games: heuristic, or a search spec "
                                   "such as mcts:sims=200", metavar="SPEC")
    init: str | None = knob(None, "an expert-iteration run directory to start from: its network (latest "
                            "iteration) and replay buffer, instead of a warm start; the network's widths, "
                            "rule and observation options and player counts must be this run's", type=str,
                            metavar="RUN_DIR")
    buffer_size: int = knob(20_000, "samples kept for training", low=1)
    epochs: int = shared("epochs", doc="passes over the buffer per iteration")
    batch_size: int = shared("batch_size")
    lr: float = shared("lr", 1e-3)
    weight_decay: float = shared("weight_decay")
    value_weight: float = knob(1.0, "weight of the value loss", low=0)
    eval_every: int = shared("eval_every", doc="iterations between evaluations")
    eval_games: int = shared("eval_games")
    eval_against: tuple[str, ...] | None = shared("eval_against", None, doc="comma-separated evaluation "
                                                  "opponents (default random and, where the game has one, the "
                                                  "heuristic); the last one decides best.zip")
    channels: int = shared("channels")
    conv_layers: int = shared("conv_layers")
    flat_hidden: int = knob(128, "hidden width of the flat layer (--width sets it and trunk_hidden)", low=1)
    trunk_hidden: int = knob(128, "hidden width of the trunk (--width sets it and flat_hidden)", low=1)
    board_channels: int = shared("board_channels")
    trunk_layers: int = shared("trunk_layers")
    action_hidden: int = shared("action_hidden")
    seed: int = shared("seed")

    def check(self) -> None:
        has_heuristic = self.game in HEURISTICS
        if self.opponents is None:
            object.__setattr__(self, "opponents", {"self": 0.5, "heuristic": 0.25, "snapshot": 0.25}
                               if has_heuristic else {"self": 0.75, "snapshot": 0.25})
        if self.eval_against is None:
            object.__setattr__(self, "eval_against", ("random", "heuristic") if has_heuristic else ("random",))
        teacher = self.warm_start_teacher
        if teacher.split(":")[0] not in ("heuristic", "mcts"):
            raise ValueError(f"exit: warm_start_teacher must be 'heuristic' or an mcts spec, got {teacher!r}")
        needs_heuristic = self.opponents.get("heuristic", 0) or (self.warm_start_games and teacher == "heuristic")
        if not has_heuristic and needs_heuristic:
            raise ValueError(f"exit: {self.game!r} has no heuristic, so neither a heuristic warm start nor a "
                             f"'heuristic' opponent weight can be used")
        self._check_search_options(has_heuristic)
        bad = [k for k in self.opponents if k not in OPPONENT_KINDS]
        if bad:
            raise ValueError(f"exit: unknown opponent kind(s) {bad}; known: {', '.join(OPPONENT_KINDS)}")
        if self.inference_precision == "float16" and self.inference_device == "cpu":
            raise ValueError("exit: inference_precision float16 runs on a GPU only (inference_device cpu); use "
                             "bfloat16 or float32 on the CPU")
        self._check_counts()

    def _check_search_options(self, has_heuristic: bool) -> None:
        """The search options are knobs of the expert's search (the network-guided one), each in its range."""
        table = NETWORK_SEARCH_KNOBS
        known = set(table.names) - _OWN_SEARCH_KNOBS
        bad = sorted(set(self.search_options) - known)
        if bad:
            raise ValueError(f"exit: unknown search option(s) {bad}; known: {', '.join(sorted(known))}")
        table.validate(self.search_options, fill=False)  # each value in its range
        if self.full_search_fraction < 1 and self.fast_sims >= self.sims:
            raise ValueError(f"exit: fast_sims ({self.fast_sims}) must be fewer than sims ({self.sims}): the "
                             f"decisions not searched in full (full_search_fraction < 1) get the cheaper search")
        if self.policy_target == "improved" and self.search_options.get("root") != "gumbel":
            raise ValueError("exit: policy_target=improved is the Gumbel root's improved policy; it needs "
                             "--search-option root=gumbel")
        for name in ("heuristic_prior", "opponent_prior"):
            if (self.search_options.get(name) or 0) > 0 and not has_heuristic:
                raise ValueError(f"exit: search option {name} blends in the game heuristic's prior, and "
                                 f"{self.game!r} has no heuristic")

    def _check_counts(self) -> None:
        counts, cls = self.counts, game_class(self.game)
        bad = [n for n in counts if not cls.min_players <= n <= cls.max_players]
        if bad:
            raise ValueError(f"exit: {self.game} plays {cls.min_players}..{cls.max_players} players, not {bad}")
        if self.num_players not in counts:
            raise ValueError(f"exit: num_players {self.num_players} is not one of player_counts {list(counts)}")
        if len(counts) > 1 and self.architecture != SEAT_ARCHITECTURE:
            raise ValueError(f"exit: several player counts {list(counts)} need --architecture seatnet (a block "
                             "network plays one count)")
        if self.seat_widths and self.architecture != SEAT_ARCHITECTURE:
            raise ValueError("exit: seat_widths are widths of --architecture seatnet")

    @property
    def counts(self) -> tuple[int, ...]:
        """The player counts of the run's games (``player_counts``, or ``num_players`` alone)."""
        return tuple(self.player_counts) if self.player_counts else (int(self.num_players),)

    def players_text(self) -> str:
        return ",".join(str(n) for n in self.counts)

    def count_game(self, num_players: int) -> Any:
        """The game of the run's options at ``num_players`` players."""
        return make_game(self.game, int(num_players), **dict(self.options))

    @property
    def net_config(self) -> dict[str, Any]:
        """The learner's network config: the block widths, or the seat network's counts and widths."""
        if self.architecture == SEAT_ARCHITECTURE:
            return {"architecture": SEAT_ARCHITECTURE, "seat_counts": list(self.counts), **self.seat_widths}
        return {"channels": self.channels, "conv_layers": self.conv_layers, "flat_hidden": self.flat_hidden,
                "trunk_hidden": self.trunk_hidden, "board_channels": self.board_channels,
                "trunk_layers": self.trunk_layers, "action_hidden": self.action_hidden}
