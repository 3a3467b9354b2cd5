"""Shared rendering helpers (Pillow): drawing text and simple shapes to RGB arrays."""

from __future__ import annotations

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1)
def default_font():  # noqa: ANN201 - PIL font object
    from PIL import ImageFont

    for name in ("DejaVuSansMono.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"):
        try:
            return ImageFont.truetype(name, 13)
        except OSError:
            continue
    return ImageFont.load_default()


def text_to_rgb(text: str, width: int | None = None, bg=(250, 248, 240), fg=(20, 20, 20)) -> np.ndarray:
    """Draw monospace ``text`` on a canvas and return it as uint8 (H, W, 3)."""
    from PIL import Image, ImageDraw

    font = default_font()
    lines = text.splitlines() or [""]
    box = font.getbbox("M")
    cw, ch = max(box[2] - box[0], 7), max(box[3] - box[1], 12) + 4
    w = width or 16 + cw * max(len(line) for line in lines)
    h = 16 + ch * len(lines)
    img = Image.new("RGB", (w, h), bg)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((8, 8 + i * ch), line, fill=fg, font=font)
    return np.asarray(img, dtype=np.uint8).copy()
