"""The one generic PettingZoo AEC adapter, used by every meeplezoo game.

A game's entry module (e.g. ``meeplezoo.envs.kerala_v0``) only says which
:class:`~meeplezoo.envs.core.game.Game` it wraps::

    class raw_env(MeeplezooAECEnv):
        game_cls = KeralaGame
        metadata = env_metadata(KeralaGame)

    def env(**kwargs):
        return wrap_env(raw_env(**kwargs))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .game import REWARD_MODES, Game, IllegalActionError, State
from .rng import check_seed

RENDER_MODES = ("ansi", "human", "rgb_array")
OBS_FORMATS = ("flat", "dict")
ILLEGAL_ACTION_MODES = ("raise", "terminate", "penalize")


def env_metadata(game_cls: type[Game]) -> dict[str, Any]:
    return {
        "name": game_cls.env_name,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }


class MeeplezooAECEnv(AECEnv):
    """PettingZoo AEC environment over any meeplezoo :class:`Game`.

    A game's entry module subclasses it with ``game_cls`` set (``raw_env``); ``env()`` wraps it the way
    PettingZoo's classic environments are wrapped.

    Args:
        num_players: the player count; None: the game's default. Agents are ``player_0`` .. ``player_{n-1}``.
        render_mode: ``"ansi"`` (the position as text), ``"human"`` (printed) or ``"rgb_array"`` (a picture).
        reward_mode: ``"win"`` (winners share +1, the others share -1), ``"rank"`` (linear from +1 for first to
            -1 for last) or ``"score"`` (final score minus the others' mean, scaled).
        illegal_action: ``"raise"``: a clear :class:`IllegalActionError` and no change (the default of
            ``raw_env``); ``"terminate"``, the default of ``env()``, as PettingZoo classic: an illegal move
            inside the action space ends the game, the offender gets ``illegal_reward`` and the others 0, with
            PettingZoo's illegal-move warning, while an action outside the action space (a negative or too
            large id, a float, a bool, infinity) raises, like ``AssertOutOfBoundsWrapper``; ``"penalize"``:
            any action that is not a legal move, malformed ones included, ends the game that way.
        illegal_reward: the offender's reward when an illegal action ends the game.
        max_cycles: a limit on the number of decisions: when reached, every agent is truncated with reward 0.
        text_infos: each agent's infos carry ``observation_text`` and ``legal_action_names``.
        obs_format: ``"flat"`` or ``"dict"`` (below).
        **rule_options: the game's rule options by name.

    A game the engine cuts off (a safety limit such as Haus der Sonne's
    ``turn_limit``) also ends in truncation, never in a termination.

    Observations are ``{"observation": float32[D], "action_mask": int8[A]}``; the
    mask is all zeros for an agent that is not to move.  With ``obs_format="dict"``
    the flat vector is replaced by its named blocks in their natural shapes
    (``game.observation_spec``; e.g. Kerala's ``platforms`` is ``(players, planes, 21, 21)``),
    views of one vector, beside ``action_mask``.  The engine state is
    ``env.unwrapped.game_state``; ``env.unwrapped.observer`` builds the observations.
    """

    game_cls: type[Game]
    metadata: dict[str, Any] = {"name": "meeplezoo", "render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(
        self,
        num_players: int | None = None,
        render_mode: str | None = None,
        reward_mode: str = "win",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        text_infos: bool = False,
        obs_format: str = "flat",
        **rule_options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"unknown render_mode {render_mode!r}; allowed: {', '.join(RENDER_MODES)} or None")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"unknown illegal_action {illegal_action!r}; allowed: {', '.join(ILLEGAL_ACTION_MODES)}"
            )
        if obs_format not in OBS_FORMATS:
            raise ValueError(f"unknown obs_format {obs_format!r}; allowed: {', '.join(OBS_FORMATS)}")
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1
        ):
            raise ValueError(f"max_cycles must be a positive int or None, got {max_cycles!r}")
        self.game: Game = self.game_cls(num_players, **rule_options)
        self.max_cycles = int(max_cycles) if max_cycles is not None else 0
        self.text_infos = bool(text_infos)
        self.observer = self.game.make_observer()
        self.obs_format = obs_format
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        spec = self.game.observation_spec
        mask_box = spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8)
        if obs_format == "dict":
            boxes = {name: spaces.Box(lo, hi, shape=shape, dtype=np.float32)
                     for name, (shape, lo, hi, _sl) in spec.structure().items()}
        else:
            boxes = {"observation": spaces.Box(spec.low, spec.high, dtype=np.float32)}
        self.observation_spaces = {
            a: spaces.Dict({**boxes, "action_mask": mask_box}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        n_obs = self.game.state_shape[0] // spec.size
        self.state_space = spaces.Box(np.tile(spec.low, n_obs), np.tile(spec.high, n_obs), dtype=np.float32)
        self._zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._seed_rng = np.random.default_rng()
        self.game_state: State | None = None
        self.game_seed: int | None = None
        self.action_history: list[int] = []

    # -- spaces --------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The ``Dict(observation, action_mask)`` space (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(game.num_actions)`` (the same for every agent)."""
        return self.action_spaces[agent]

    # -- episode -------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` fixes every chance draw of it (setup and play)."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        self.game_seed = int(self._seed_rng.integers(0, 2**63))
        if options and options.get("state") is not None:
            state = options["state"]
            if not isinstance(state, State) or state.game != self.game:
                raise ValueError("options['state'] must be a State of this environment's game configuration")
            self.game_state = state.clone()
        else:
            self.game_state = self.game.new_state(self.game_seed)
        self.action_history = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._sync_selection()
        if self.game_state.is_terminal():  # degenerate configuration: nothing to decide
            self._end_of_game()
        elif self.text_infos:
            self._add_text_infos()

    def _sync_selection(self) -> None:
        p = self.game_state.current_player
        if p >= 0:
            self.agent_selection = self.possible_agents[p]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    def _finish(self, rewards: np.ndarray, placements: list[int] | None = None, truncated: bool = False) -> None:
        """End the episode: terminated with ``rewards``, or truncated (rewards 0, ``placements`` None)."""
        scores = [float(s) for s in self.game_state.scores()]
        if placements is None and not truncated:
            placements = self.game_state.placements()
        flags = self.truncations if truncated else self.terminations
        for a in self.agents:
            self.rewards[a] = 0.0 if truncated else float(rewards[self.agent_name_mapping[a]])
            flags[a] = True
            self.infos[a] = {"scores": scores, "placements": placements}
            if truncated:
                self.infos[a]["truncated"] = True
        self._accumulate_rewards()
        if self.text_infos:
            self._add_text_infos()

    def _end_of_game(self) -> None:
        """The engine says the game is over: a result, or a cut-off (truncation)."""
        state = self.game_state
        if state.is_truncated():
            self._finish(np.zeros(self.game.num_players), truncated=True)
        else:
            self._finish(state.returns(self.reward_mode))

    def _penalize(self, agent: str) -> None:
        """PettingZoo's ``TerminateIllegalWrapper``: the game ends, the offender gets
        ``illegal_reward``, the others 0; placements follow the penalty (offender last, others
        shared first), not the position on the board."""
        from pettingzoo.utils.env_logger import EnvLogger

        EnvLogger.warn_on_illegal_move()
        offender = self.agent_name_mapping[agent]
        penalty = np.zeros(self.game.num_players)
        penalty[offender] = self.illegal_reward
        n = self.game.num_players
        placements = [n - 1 if p == offender else 0 for p in range(n)]
        self._finish(penalty, placements=placements)
        for a in self.agents:
            self.infos[a]["illegal_action"] = a == agent

    def _add_text_infos(self) -> None:
        state = self.game_state
        live = not state.is_terminal()
        for a in self.agents:
            p = self.agent_name_mapping[a]
            info = self.infos[a]
            info["observation_text"] = state.observation_string(p)
            info["legal_action_names"] = (
                [state.action_name(x) for x in state.legal_actions()] if live and p == state.current_player else []
            )

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (None for an agent that is done), as PettingZoo's AEC API."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        state = self.game_state
        try:
            state.apply(action)
        except IllegalActionError:
            if self.illegal_action == "raise" or (
                self.illegal_action == "terminate" and not self._in_action_space(action)
            ):
                raise
            self._penalize(agent)
            return
        self.action_history.append(int(action))
        if state.is_terminal():
            self._end_of_game()
        elif self.max_cycles and len(self.action_history) >= self.max_cycles:
            self._finish(np.zeros(self.game.num_players), truncated=True)
        else:
            self._sync_selection()
            if self.text_infos:
                self._add_text_infos()
        if self.render_mode == "human":
            self.render()

    def _in_action_space(self, action: Any) -> bool:
        """An int-like action inside ``Discrete(num_actions)`` (PettingZoo's out-of-bounds check)."""
        return (
            isinstance(action, (int, np.integer))
            and not isinstance(action, (bool, np.bool_))
            and 0 <= action < self.game.num_actions
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees now: its observation and its action mask (zeros when it is not to move)."""
        p = self.agent_name_mapping[agent]
        state = self.game_state
        obs = self.observer.observe(state, p)
        if state.current_player == p and not state.is_terminal():
            mask = state.legal_mask().astype(np.int8)
        else:
            mask = self._zero_mask.copy()
        if self.obs_format == "dict":
            out = self.observer.spec.views(obs)
            out["action_mask"] = mask
            return out
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state vector (every seat's observation, for a centralised critic)."""
        return self.game_state.state_vector()

    # -- rendering -------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """The position in ``render_mode``: text, printed text, or a uint8 picture."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game_state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self.game_state.render_rgb()
        text = self.game_state.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's :class:`~pettingzoo.utils.wrappers.OrderEnforcingWrapper`, with the same checks,
    whose :meth:`last` asks the wrapped environment directly.

    The inherited ``last`` reads five attributes, each through the wrapper's ``__getattr__``
    (about a microsecond apiece, at every decision of every agent loop); this one checks for
    ``reset()`` once, as those reads would, and returns the wrapped environment's ``last``, the
    same tuple."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    # read at every step by the agent loop and by ``step``: the same check as ``__getattr__``'s
    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @agents.setter
    def agents(self, value: list[str]) -> None:
        self.env.agents = value

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    @agent_selection.setter
    def agent_selection(self, value: str) -> None:
        self.env.agent_selection = value


def wrap_env(raw: MeeplezooAECEnv) -> AECEnv:
    """The standard PettingZoo wrappers (illegal actions are handled by the adapter itself)."""
    return OrderEnforcingWrapper(raw)


def classic_env(raw_cls: type[MeeplezooAECEnv], **kwargs: Any) -> AECEnv:
    """``env()`` of an entry module, like PettingZoo classic's: an illegal move ends the game with
    ``illegal_reward`` (-1) for the mover and a warning (``illegal_action="raise"`` to raise instead),
    an action outside the action space raises, and the order of calls is enforced."""
    kwargs.setdefault("illegal_action", "terminate")
    return wrap_env(raw_cls(**kwargs))
