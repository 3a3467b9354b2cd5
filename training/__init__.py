"""Training and evaluation: arenas, PPO training, self-play, leagues and ratings."""
