"""Haus der Sonne as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, env_metadata, wrap_env
from meeplezoo.envs.haus_der_sonne.state import HausDerSonneGame

Game = HausDerSonneGame


class raw_env(MeeplezooAECEnv):
    game_cls = HausDerSonneGame
    metadata = env_metadata(HausDerSonneGame)


def env(**kwargs):
    return wrap_env(raw_env(**kwargs))
