#!/usr/bin/env python3
"""Checks our SSIMULACRA2 (`richpush-bench score`) against the `ssimulacra2` PyPI package.

usage: ssimulacra2_check.py --bench PATH/richpush-bench [--generated N] [--workdir DIR] CORPUS_FILE...

For each corpus file (fitted to 1038x1038 with Lanczos, alpha flattened onto grey, as our metric sees it) and N
generated images (scripts/quality_images.py), it makes distorted versions (Pillow JPEG at q20...q95, a blur, added
noise), scores each with both implementations and prints per-pair scores, the largest difference, and whether
each reference's candidates rank the same. Needs `pip install ssimulacra2 pillow numpy scipy`.

Two PyPI columns: the package as published, and the package with its blur's borders as libjxl has them. libjxl's
recursive Gaussian counts pixels outside the image as zero on all four sides; the package pads with zeros above
and below but mirrors at the left and right. The coarse scales are small (33 px wide for a 1038 px image), so the
border decides part of the score: as published the package scores low-quality images up to ~2.5 lower. We follow
libjxl, so the pass criterion (within 1, same ranking) is against the second column; the first is reported.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageFilter
import ssimulacra2.ssimulacra2 as pypi
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality_images  # noqa: E402


def opaque(image):
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        grey = Image.new("RGBA", image.size, (128, 128, 128, 255))
        return Image.alpha_composite(grey, image).convert("RGB")
    return image.convert("RGB")


def distortions(image, workdir, name):
    paths = []
    for quality in (20, 40, 60, 75, 85, 95):
        path = os.path.join(workdir, f"{name}.q{quality}.jpg")
        image.save(path, quality=quality)
        paths.append(path)
    path = os.path.join(workdir, f"{name}.blur.png")
    image.filter(ImageFilter.GaussianBlur(1.0)).save(path)
    paths.append(path)
    rng = np.random.default_rng(7)
    noisy = np.clip(np.asarray(image, dtype=np.float64) + rng.normal(0, 6, (image.height, image.width, 3)), 0, 255)
    path = os.path.join(workdir, f"{name}.noise.png")
    Image.fromarray(noisy.astype(np.uint8)).save(path)
    paths.append(path)
    return paths


def pypi_scores(reference, candidates):
    published = [pypi.compute_ssimulacra2(reference, candidate) for candidate in candidates]
    original_blur = pypi.blur_image
    pypi.blur_image = lambda image, sigma=1.5: ndimage.gaussian_filter(
        image, sigma=sigma, truncate=3.33, mode="constant", cval=0.0, axes=(0, 1))
    try:
        libjxl_borders = [pypi.compute_ssimulacra2(reference, candidate) for candidate in candidates]
    finally:
        pypi.blur_image = original_blur
    return published, libjxl_borders


def ours(bench, reference, candidates):
    output = subprocess.run([bench, "score", reference] + candidates, check=True, capture_output=True, text=True).stdout
    return [float(line.split("\t")[1]) for line in output.splitlines()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--generated", type=int, default=10)
    parser.add_argument("--workdir", default="/tmp/ssimulacra2_check")
    parser.add_argument("files", nargs="*")
    arguments = parser.parse_args()
    os.makedirs(arguments.workdir, exist_ok=True)

    references = [(os.path.basename(path), quality_images.fit(opaque(Image.open(path)))) for path in arguments.files]
    references += quality_images.generated(arguments.generated)
    worst, worst_published, rank_misses, pairs, all_ours, all_theirs = 0.0, 0.0, 0, 0, [], []
    print("reference\tcandidate\tpypi\tpypi_libjxl_borders\tours\tdifference")
    for name, image in references:
        reference = os.path.join(arguments.workdir, f"{name}.reference.png")
        image.save(reference)
        candidates = distortions(image, arguments.workdir, name)
        mine = ours(arguments.bench, reference, candidates)
        published, theirs = pypi_scores(reference, candidates)
        for candidate, p, a, b in zip(candidates, published, theirs, mine):
            print(f"{name}\t{os.path.basename(candidate)}\t{p:.3f}\t{a:.3f}\t{b:.3f}\t{b - a:+.3f}", flush=True)
            worst = max(worst, abs(b - a))
            worst_published = max(worst_published, abs(b - p))
            pairs += 1
        all_ours += mine
        all_theirs += theirs
        if list(np.argsort(theirs, kind="stable")) != list(np.argsort(mine, kind="stable")):
            rank_misses += 1
            print(f"{name}\tranking differs", flush=True)
    concordant = discordant = 0
    for i in range(len(all_ours)):
        for j in range(i + 1, len(all_ours)):
            product = (all_ours[i] - all_ours[j]) * (all_theirs[i] - all_theirs[j])
            concordant += product > 0
            discordant += product < 0
    print(f"pairs {pairs}, references {len(references)}, largest difference {worst:.3f} "
          f"(against the package as published: {worst_published:.3f}), "
          f"references whose candidates rank differently {rank_misses}, "
          f"pairwise order agreement over all pairs {concordant / max(1, concordant + discordant):.4f}")
    return 0 if worst <= 1.0 and rank_misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
