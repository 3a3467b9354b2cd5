"""Single-agent Gymnasium view of any meeplezoo game, for training one seat.

One learning seat (fixed, or drawn per episode); every other seat is played by
the given opponents inside ``step``.  The learner gets its own observation,
its own action mask (``action_masks()``, as sb3-contrib's MaskablePPO expects,
and ``info["action_mask"]``) and its own terminal return.

Opponents are either a sequence of agents (or agent spec strings), reused
every episode, or a pool object with ``sample(k, rng) -> list[Agent]`` called
at each reset (self-play pools use this).

Names (a game id for ``game``, spec strings among the opponents) are resolved
by ``agent_factory`` or by the resolvers that ``import meeplezoo`` installs
(:mod:`.resolve`); this module imports nothing above ``envs.core``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from .game import REWARD_MODES, Game, IllegalActionError, State, check_action  # noqa: F401 (re-exported)
from .resolve import resolve_agent, resolve_game
from .rng import check_seed


class OpponentSampler(Protocol):
    def sample(self, k: int, rng: np.random.Generator) -> list[Any]: ...


def _build_game(game: str | Game, num_players: int | None, rule_options: dict[str, Any]) -> Game:
    if isinstance(game, Game):
        if num_players is not None and num_players != game.num_players or rule_options:
            raise ValueError("pass either a Game object or a game name with num_players/rule options, not both")
        return game
    return resolve_game(game, num_players, **rule_options)


class SingleAgentEnv(gymnasium.Env):
    """Gymnasium env: the learner plays ``learner_seat``; opponents play the rest.

    Args:
        game: a :class:`Game`, or a registry id (``"kerala"``) resolved by the
            installed game resolver.
        opponents: agents or agent specs for the other seats (cycled to fill
            them), or an :class:`OpponentSampler`.  Default: random agents.
        agent_factory: ``(spec, game_name, *, num_players, seed) -> agent`` for
            the spec strings among ``opponents``; default the installed one
            (``meeplezoo.agents.make``).
        num_players: player count when ``game`` is an id.
        learner_seat: fixed seat, or ``None`` to draw one per episode.
        reward_mode: ``"win"``, ``"rank"`` or ``"score"``.
        illegal_action: ``"penalize"`` (default, like PettingZoo's
            TerminateIllegalWrapper: the episode ends with ``illegal_reward`` for
            the learner, ``info["illegal_action"]`` is True) or ``"raise"``
            (:class:`IllegalActionError`, state unchanged).  Masked policies never
            trigger either; unmasked ones (and env checkers) may.
        seed: seeds game setup, seat draws and opponent sampling.
        **rule_options: the game's rule options.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str | Game,
        opponents: Sequence[Any] | OpponentSampler | None = None,
        *,
        num_players: int | None = None,
        learner_seat: int | None = None,
        reward_mode: str = "win",
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        seed: int | None = None,
        render_mode: str | None = None,
        agent_factory: Callable[..., Any] | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        self.game = _build_game(game, num_players, rule_options)
        n = self.game.num_players
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be None or an int in 0..{n - 1}, got {learner_seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; allowed: ansi, human, rgb_array")
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(f"unknown illegal_action {illegal_action!r}; allowed: 'penalize', 'raise'")
        self.reward_mode = reward_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._illegal_end = False
        self.fixed_seat = learner_seat
        self.render_mode = render_mode
        self._rng = np.random.default_rng(check_seed(seed))
        if opponents is None:
            opponents = ["random"]
        if hasattr(opponents, "sample"):
            self._sampler: OpponentSampler | None = opponents  # type: ignore[assignment]
            self._fixed: list[Any] = []
        else:
            make_agent = agent_factory or resolve_agent
            self._sampler = None
            built = [
                make_agent(o, self.game.name, num_players=n, seed=int(self._rng.integers(2**31)))
                if isinstance(o, str)
                else o
                for o in opponents
            ]
            if not built:
                raise ValueError("opponents must name at least one agent")
            self._fixed = [built[i % len(built)] for i in range(n - 1)]
        spec = self.game.observation_spec
        self.observation_space = spaces.Box(spec.low, spec.high, dtype=np.float32)
        self.observer = self.game.make_observer()
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: State | None = None
        self.learner_seat = learner_seat if learner_seat is not None else 0
        self.seat_agents: list[Any] = []

    # -- gymnasium API -----------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a game (the learner's seat drawn unless fixed); the opponents play until the learner is to move."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.game.num_players
        self.learner_seat = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(n))
        opponents = self._sampler.sample(n - 1, self._rng) if self._sampler is not None else list(self._fixed)
        if len(opponents) != n - 1:
            raise ValueError(f"opponent sampler returned {len(opponents)} agents, expected {n - 1}")
        self.seat_agents = opponents[: self.learner_seat] + [None] + opponents[self.learner_seat :]
        for agent in opponents:
            agent.reset(int(self._rng.integers(2**31)))
        self.state = self.game.new_state(int(self._rng.integers(2**63)))
        self._illegal_end = False
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``, then the opponents' moves up to the learner's next decision or the end."""
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if state.is_terminal() or self._illegal_end:
            raise RuntimeError("the episode is over; call reset()")
        if state.current_player != self.learner_seat:  # pragma: no cover - guarded by _play_opponents
            raise RuntimeError("internal error: step() called when the learner is not to move")
        if self.illegal_action == "penalize":
            try:
                a = check_action(action, self.game.name)
            except IllegalActionError:
                a = -1
            if a < 0 or not state.is_legal(a):
                self._illegal_end = True
                info = self._info()
                info["illegal_action"] = True
                return self._obs(), self.illegal_reward, True, False, info
        else:
            a = action
        state.apply(a)  # IllegalActionError names the action; the state is unchanged
        self._play_opponents()
        over = state.is_terminal()
        truncated = over and state.is_truncated()  # a safety limit cut the game off: no result
        reward = float(state.returns(self.reward_mode)[self.learner_seat]) if over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, over and not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the episode is over)."""
        if self.state is None or self.state.is_terminal() or self._illegal_end:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.state.legal_mask().copy()

    def render(self) -> str | np.ndarray | None:
        """The position in ``render_mode``: text, printed text, or a uint8 picture."""
        if self.state is None or self.render_mode is None:
            return None
        if self.render_mode == "human":  # printed, like the multi-agent env's human mode
            print(self.state.render_text())
            return None
        return self.state.render_rgb() if self.render_mode == "rgb_array" else self.state.render_text()

    # -- internals -----------------------------------------------------------------
    def _play_opponents(self) -> None:
        # the agent protocol's engine-level call (``meeplezoo.agents.act_on_state``), written out here
        state = self.state
        while not state.is_terminal() and state.current_player != self.learner_seat:
            p = state.current_player
            agent = self.seat_agents[p]
            obs = state.observe(p) if agent.uses_observation else None
            state.apply(int(agent.act(obs, state.legal_mask(), state=state if agent.uses_state else None)))

    def _obs(self) -> np.ndarray:
        return self.observer.observe(self.state, self.learner_seat)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "learner_seat": self.learner_seat}
        if self.state.is_terminal():
            info["scores"] = [float(s) for s in self.state.scores()]
            info["placements"] = self.state.placements()
            info["returns"] = self.state.returns(self.reward_mode).tolist()
        return info
