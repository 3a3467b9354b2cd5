"""The template game as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo
from meeplezoo.envs.template.state import TemplateGame

Game = TemplateGame
GAME_INFO = GameInfo.of(TemplateGame, __name__, example=True, order=1000)


class raw_env(MeeplezooAECEnv):
    game_cls = TemplateGame
    metadata = env_metadata(TemplateGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
