"""Hawaii rendering (placeholder replaced below)."""
def render_text(s):
    return "hawaii"
def render_rgb(s):
    from ..core.render import text_to_rgb
    return text_to_rgb(render_text(s))
