#!/usr/bin/env python3
"""Makes the README demo images in this folder from scikit-image's bundled sample photos (deterministic).

hero.jpg (1600x1200), story1..3.jpg (1200x1800), logo.png (RGBA with real alpha), banner.webp (1200x400, lossy).
The folder stays under ~1.5 MB.
"""
import os

import numpy as np
from PIL import Image
from skimage import data

HERE = os.path.dirname(os.path.abspath(__file__))


def fill(image, size):
    """Scale to cover `size`, then centre-crop (Lanczos)."""
    width, height = size
    scale = max(width / image.width, height / image.height)
    scaled = image.resize((max(width, round(image.width * scale)), max(height, round(image.height * scale))), Image.LANCZOS)
    left, top = (scaled.width - width) // 2, (scaled.height - height) // 2
    return scaled.crop((left, top, left + width, top + height))


def save_jpeg(image, name, quality):
    image.convert("RGB").save(os.path.join(HERE, name), quality=quality, optimize=True)


def main():
    save_jpeg(fill(Image.fromarray(data.coffee()), (1600, 1200)), "hero.jpg", 72)
    save_jpeg(fill(Image.fromarray(data.astronaut()), (1200, 1800)), "story1.jpg", 65)
    save_jpeg(fill(Image.fromarray(data.rocket()), (1200, 1800)), "story2.jpg", 65)
    save_jpeg(fill(Image.fromarray(data.chelsea()), (1200, 1800)), "story3.jpg", 65)

    # A logo with real alpha: the scikit-image logo on a transparent background, soft edges kept.
    # The scikit-image logo has an opaque white background: turn distance-from-white into alpha.
    rgb = np.asarray(Image.fromarray(data.logo()).convert("RGB")).astype(np.int32)
    whiteness = rgb.min(axis=2)
    alpha = np.clip((255 - whiteness) * 4, 0, 255).astype(np.uint8)
    logo = Image.fromarray(np.dstack([rgb.astype(np.uint8), alpha]), "RGBA")
    logo.save(os.path.join(HERE, "logo.png"), optimize=True)

    banner = fill(Image.fromarray(data.hubble_deep_field()), (1200, 400))
    banner.save(os.path.join(HERE, "banner.webp"), quality=70, method=4)

    # What a broken CDN often serves under an image URL: an HTML error page. The sample's third job uses it.
    with open(os.path.join(HERE, "broken.jpg"), "w") as page:
        page.write("<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>"
                   "<body><h1>502 Bad Gateway</h1></body></html>\n")

    total = 0
    for name in sorted(os.listdir(HERE)):
        size = os.path.getsize(os.path.join(HERE, name))
        total += size
        print(f"{name}\t{size}")
    print(f"total\t{total}")


if __name__ == "__main__":
    np.random.seed(0)
    main()
