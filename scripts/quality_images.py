"""Deterministic generated test images for the quality scripts: faces-like blobs, text on flat colour,
gradients, noise and line art, at varied sizes (some odd, to exercise the metric's borders).

`generated(count)` returns [(name, PIL.Image RGB)], the same for the same Pillow and numpy versions.
`fit(image, side)` resizes to fit within side x side (Lanczos, never upscaling), as our renders do.
"""
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

KINDS = ("faces", "text", "gradient", "noise", "lineart")


def fit(image, side=1038):
    scale = min(side / image.width, side / image.height, 1.0)
    if scale >= 1.0:
        return image.copy()
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.LANCZOS)


def _faces(rng, width, height):
    # Skin-toned ellipses with eyes and soft shading over a blurred background: smooth areas and fine edges.
    base = rng.integers(40, 200, size=(height // 32 + 2, width // 32 + 2, 3)).astype(np.uint8)
    image = Image.fromarray(base).resize((width, height), Image.BICUBIC)
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(2, 6))):
        cx, cy = int(rng.integers(0, width)), int(rng.integers(0, height))
        rx, ry = int(rng.integers(width // 12, width // 5)), int(rng.integers(height // 10, height // 4))
        skin = tuple(int(v) for v in rng.integers([150, 100, 80], [255, 200, 170]))
        draw.ellipse([cx - rx, cy - ry, cx + rx, cy + ry], fill=skin)
        for side in (-1, 1):
            ex, ey = cx + side * rx // 3, cy - ry // 4
            draw.ellipse([ex - rx // 8, ey - ry // 12, ex + rx // 8, ey + ry // 12], fill=(250, 250, 250))
            draw.ellipse([ex - rx // 20, ey - ry // 20, ex + rx // 20, ey + ry // 20], fill=(30, 20, 10))
        draw.arc([cx - rx // 3, cy, cx + rx // 3, cy + ry // 2], 20, 160, fill=(120, 40, 40), width=max(1, rx // 25))
    image = image.filter(ImageFilter.GaussianBlur(1.2))
    grain = rng.normal(0, 4, size=(height, width, 3))
    return Image.fromarray(np.clip(np.asarray(image, dtype=np.float64) + grain, 0, 255).astype(np.uint8))


def _text(rng, width, height):
    background = tuple(int(v) for v in rng.integers(0, 256, 3))
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(rng.integers(14, 48)))
    y = 10
    while y < height - 20:
        colour = tuple(255 - v if rng.random() < 0.7 else int(rng.integers(0, 256)) for v in background)
        words = " ".join("".join(chr(int(c)) for c in rng.integers(97, 123, int(rng.integers(2, 9))))
                         for _ in range(12))
        draw.text((10, y), words, fill=colour, font=font)
        y += int(font.size * 1.5)
    return image


def _gradient(rng, width, height):
    x = np.linspace(0, 1, width)[None, :, None]
    y = np.linspace(0, 1, height)[:, None, None]
    a, b, c = rng.random((3, 1, 1, 3))
    angle = rng.random()
    values = a + (b - a) * (angle * x + (1 - angle) * y) + 0.2 * c * np.sin(6 * np.pi * x * y)
    return Image.fromarray(np.clip(values * 255, 0, 255).astype(np.uint8))


def _noise(rng, width, height):
    sigma = float(rng.choice([6, 20, 60]))
    base = rng.integers(0, 256, size=(1, 1, 3))
    values = base + rng.normal(0, sigma, size=(height, width, 3))
    image = Image.fromarray(np.clip(values, 0, 255).astype(np.uint8))
    return image.filter(ImageFilter.GaussianBlur(float(rng.choice([0, 0.6, 1.5]))))


def _lineart(rng, width, height):
    image = Image.new("RGB", (width, height), (255, 255, 255) if rng.random() < 0.7 else (20, 20, 30))
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(20, 80))):
        points = [(int(rng.integers(0, width)), int(rng.integers(0, height))) for _ in range(2)]
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        if rng.random() < 0.5:
            draw.line(points, fill=colour, width=int(rng.integers(1, 5)))
        else:
            box = [min(points[0][0], points[1][0]), min(points[0][1], points[1][1]),
                   max(points[0][0], points[1][0]), max(points[0][1], points[1][1])]
            if rng.random() < 0.5:
                draw.rectangle(box, outline=colour, width=int(rng.integers(1, 4)))
            else:
                draw.ellipse(box, fill=colour if rng.random() < 0.5 else None, outline=(0, 0, 0))
    return image


def generated(count=50, seed=29):
    rng = np.random.default_rng(seed)
    sizes = [(1038, 778), (800, 1038), (1038, 1038), (640, 480), (517, 389), (333, 257)]
    makers = {"faces": _faces, "text": _text, "gradient": _gradient, "noise": _noise, "lineart": _lineart}
    images = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        width, height = sizes[(index // len(KINDS)) % len(sizes)]
        images.append((f"gen{index:02d}_{kind}_{width}x{height}", makers[kind](rng, width, height)))
    return images
