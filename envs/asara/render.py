"""Text and picture rendering of Asara (placeholder until the full renderer)."""
from __future__ import annotations


def render_text(s, viewer=None):
    return f"year {s.year} player {s.current_player} pp {s.pp}"


def render_rgb(s):
    from ..core.render import text_to_rgb

    return text_to_rgb(render_text(s))
