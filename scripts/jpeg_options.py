#!/usr/bin/env python3
"""Bytes at equal SSIMULACRA2 for libjpeg-turbo's options: 4:2:0 against 4:4:4, baseline against progressive
(Huffman tables optimised in all). For each image (corpus files fitted to 1038 px, and generated images from
scripts/quality_images.py) and each option set it finds the smallest file scoring at least --target over JPEG
qualities --lowest...100, scored by our metric (`richpush-bench score`), encoded by Pillow (libjpeg-turbo).

usage: jpeg_options.py --bench PATH/richpush-bench [--target 80] [--generated 50] CORPUS_FILE...
Prints one line per image, then the geometric mean of each option set's bytes over 4:2:0 baseline.
"""
import argparse
import math
import os
import subprocess
import sys

from PIL import Image, ImageFile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality_images  # noqa: E402

# Pillow's default output buffer is too small for optimised progressive scans of noisy images ("Suspension not
# allowed here").
ImageFile.MAXBLOCK = 1 << 26

OPTIONS = {
    "420": dict(subsampling=2, progressive=False),
    "420p": dict(subsampling=2, progressive=True),
    "444": dict(subsampling=0, progressive=False),
    "444p": dict(subsampling=0, progressive=True),
}


def smallest_at_target(bench, reference, image, workdir, name, options, target, qualities):
    paths = []
    for quality in qualities:
        path = os.path.join(workdir, f"{name}.{quality}.jpg")
        image.save(path, quality=quality, optimize=True, **options)
        paths.append(path)
    output = subprocess.run([bench, "score", reference] + paths, check=True, capture_output=True, text=True).stdout
    scores = [float(line.split("\t")[1]) for line in output.splitlines()]
    passing = [(os.path.getsize(p), q, s) for p, q, s in zip(paths, qualities, scores) if s >= target]
    for path in paths:
        os.remove(path)
    return min(passing) if passing else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--target", type=float, default=80)
    parser.add_argument("--generated", type=int, default=50)
    parser.add_argument("--lowest", type=int, default=30)
    parser.add_argument("--workdir", default="/tmp/jpeg_options")
    parser.add_argument("files", nargs="*")
    arguments = parser.parse_args()
    os.makedirs(arguments.workdir, exist_ok=True)
    qualities = list(range(arguments.lowest, 101))
    images = [(os.path.basename(p), quality_images.fit(Image.open(p).convert("RGB"))) for p in arguments.files]
    images += quality_images.generated(arguments.generated)
    logs = {name: [] for name in OPTIONS}
    print("image\t" + "\t".join(f"{n} bytes (q, score)" for n in OPTIONS) + "\tper-image best of 420/444")
    for name, image in images:
        reference = os.path.join(arguments.workdir, f"{name}.reference.png")
        image.save(reference)
        found = {option: smallest_at_target(arguments.bench, reference, image, arguments.workdir, name, settings,
                                            arguments.target, qualities) for option, settings in OPTIONS.items()}
        cells = [f"{f[0]} (q{f[1]}, {f[2]:.1f})" if f else "unreached" for f in found.values()]
        base = found["420"]
        reachable = [f for f in (found["420"], found["444"]) if f]
        best = min(reachable)[0] if reachable else None
        print(f"{name}\t" + "\t".join(cells) + f"\t{best}", flush=True)
        if base:
            for option, f in found.items():
                if f:
                    logs[option].append(math.log(f[0] / base[0]))
            if best:
                logs.setdefault("best of 420/444", []).append(math.log(best / base[0]))
    for option, values in logs.items():
        if values:
            print(f"{option}: geometric mean {math.exp(sum(values) / len(values)):.3f} of 4:2:0 baseline bytes "
                  f"over {len(values)} images")


if __name__ == "__main__":
    main()
