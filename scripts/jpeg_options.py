#!/usr/bin/env python3
"""Bytes at equal SSIMULACRA2 for libjpeg-turbo's options: 4:2:0 against 4:4:4, baseline against progressive
(Huffman tables optimised in all). For each image (corpus files fitted to 1038 px, and generated images from
scripts/quality_images.py) and each option set it finds the smallest file scoring at least --target over JPEG
qualities --lowest...100, scored by our metric (`richpush-bench score`), encoded by Pillow (libjpeg-turbo).

usage: jpeg_options.py --bench PATH/richpush-bench [--target 80] [--generated 50] [--options 420,420-psnrhvsm,...]
       CORPUS_FILE...
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

# Candidate quantisation tables (natural order, at quality 50) from mozjpeg's jcparam.c, which lists them with
# their sources: 2 is tuned for MS-SSIM on the Kodak set, 3 is ImageMagick's (N. Robidoux, mozjpeg's default), 4
# is tuned for PSNR-HVS-M on the Kodak set. Scaled per quality as libjpeg scales its own (jpeg_quality_scaling).
# The one the quality search uses is in Sources/RichPushImaging/Codecs/JPEG/JPEGQuantization.swift; these are what was measured.
TABLES = {
    "mssim": ([12, 17, 20, 21, 30, 34, 56, 63, 18, 20, 20, 26, 28, 51, 61, 55, 19, 20, 21, 26, 33, 58, 69, 55, 26, 26, 26, 30, 46, 87, 86, 66, 31, 33, 36, 40, 46, 96, 100, 73, 40, 35, 46, 62, 81, 100, 111, 91, 46, 66, 76, 86, 102, 121, 120, 101, 68, 90, 90, 96, 113, 102, 105, 103], [8, 12, 15, 15, 86, 96, 96, 98, 13, 13, 15, 26, 90, 96, 99, 98, 12, 15, 18, 96, 99, 99, 99, 99, 17, 16, 90, 96, 99, 99, 99, 99, 96, 96, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99]),
    "imagemagick": ([16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135, 18, 27, 31, 40, 53, 74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169, 238, 56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418], [16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135, 18, 27, 31, 40, 53, 74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169, 238, 56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418]),
    "psnrhvsm": ([9, 10, 12, 14, 27, 32, 51, 62, 11, 12, 14, 19, 27, 44, 59, 73, 12, 14, 18, 25, 42, 59, 79, 78, 17, 18, 25, 42, 61, 92, 87, 92, 23, 28, 42, 75, 79, 112, 112, 99, 40, 42, 59, 84, 88, 124, 132, 111, 42, 64, 78, 95, 105, 126, 125, 99, 70, 75, 100, 102, 116, 100, 107, 98], [9, 10, 17, 19, 62, 89, 91, 97, 12, 13, 18, 29, 84, 91, 88, 98, 14, 19, 29, 93, 95, 95, 98, 97, 20, 26, 84, 88, 95, 95, 98, 94, 26, 86, 91, 93, 97, 99, 98, 99, 99, 100, 98, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 97, 97, 99, 99, 99, 99, 97, 99]),
}


def scaled(table, quality):
    factor = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [min(255, max(1, (value * factor + 50) // 100)) for value in table]


def with_tables(name, **options):
    luma, chroma = TABLES[name]
    return lambda quality: dict(qtables=[scaled(luma, quality), scaled(chroma, quality)], **options)


OPTIONS = {
    "420": dict(subsampling=2, progressive=False),
    "420p": dict(subsampling=2, progressive=True),
    "444": dict(subsampling=0, progressive=False),
    "444p": dict(subsampling=0, progressive=True),
    "420-mssim": with_tables("mssim", subsampling=2, progressive=False),
    "420-imagemagick": with_tables("imagemagick", subsampling=2, progressive=False),
    "420-psnrhvsm": with_tables("psnrhvsm", subsampling=2, progressive=False),
}


def smallest_at_target(bench, reference, image, workdir, name, options, target, qualities):
    paths = []
    for quality in qualities:
        path = os.path.join(workdir, f"{name}.{quality}.jpg")
        if callable(options):
            image.save(path, optimize=True, **options(quality))
        else:
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
    parser.add_argument("--options", default=",".join(OPTIONS), help="comma-separated option sets; 420 is the base")
    parser.add_argument("files", nargs="*")
    arguments = parser.parse_args()
    os.makedirs(arguments.workdir, exist_ok=True)
    qualities = list(range(arguments.lowest, 101))
    images = [(os.path.basename(p), quality_images.fit(Image.open(p).convert("RGB"))) for p in arguments.files]
    images += quality_images.generated(arguments.generated)
    chosen = {name: OPTIONS[name] for name in arguments.options.split(",")}
    logs = {name: [] for name in chosen}
    print("image\t" + "\t".join(f"{n} bytes (q, score)" for n in chosen) + "\tper-image best of 420/444")
    for name, image in images:
        reference = os.path.join(arguments.workdir, f"{name}.reference.png")
        image.save(reference)
        found = {option: smallest_at_target(arguments.bench, reference, image, arguments.workdir, name, settings,
                                            arguments.target, qualities) for option, settings in chosen.items()}
        cells = [f"{f[0]} (q{f[1]}, {f[2]:.1f})" if f else "unreached" for f in found.values()]
        base = found["420"]
        reachable = [f for f in (found["420"], found.get("444")) if f]
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
