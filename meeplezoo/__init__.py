"""meeplezoo: reinforcement-learning environments for modern board games.

>>> import meeplezoo
>>> env = meeplezoo.make("kerala", num_players=3)
>>> meeplezoo.list_envs()
['kerala', 'haus_der_sonne', 'hawaii', 'asara']
"""

from .registry import env_module, game_class, list_envs, make, make_game, register_gymnasium, register_pettingzoo

__version__ = "0.1.0"
__all__ = ["env_module", "game_class", "list_envs", "make", "make_game", "register_gymnasium", "register_pettingzoo",
           "__version__"]

register_pettingzoo()
register_gymnasium()
