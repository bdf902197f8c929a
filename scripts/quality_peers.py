#!/usr/bin/env python3
"""Bytes at equal SSIMULACRA2: our searched JPEG against Pillow's and libvips', each peer at its smallest file that
scores at least what ours scores. The Python counterpart of `richpush-bench quality`.

usage: quality_peers.py --bench PATH/richpush-bench [--target 80] [--generated 50] [--format jpeg|webp|webp_when_smaller] [--workdir DIR]
                        CORPUS_FILE...

Every tool encodes the same pixels: each corpus file fitted within 1038x1038 by Pillow (Lanczos; alpha flattened
onto white, as our JPEG path does), and the generated images (scripts/quality_images.py: faces-like blobs, text on
flat colour, gradients, noise, line art). Ours is `richpush-bench quality` on that PNG (no resize, so it encodes
exactly these pixels). Peers: Pillow `save(quality=q, optimize=True)` and libvips `jpegsave(Q=q,
optimize_coding=True)`, with their default chroma subsampling, q in 30...100; a peer that cannot reach our score
at any q is tried at 4:4:4 too. All scores are ours (`richpush-bench score`, checked against the ssimulacra2
package by scripts/ssimulacra2_check.py). `--format webp` searches ours as WebP, and `--format webp_when_smaller`
as the Android variants do (both searched, the smaller kept), still against the peers' JPEGs: what an Android
field saves over the best JPEG. Needs `pip install pillow numpy pyvips` and `apt-get install libvips42`;
without pyvips, libvips is skipped and the report says so.
"""
import argparse
import io
import math
import os
import subprocess
import sys

from PIL import Image, ImageFile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality_images  # noqa: E402

ImageFile.MAXBLOCK = 1 << 26
try:
    import pyvips
    pyvips.version(0)
except Exception as error:  # the module loads libvips lazily, so a missing library shows up here
    pyvips = None
    print(f"libvips skipped: {error}", file=sys.stderr)

QUALITIES = list(range(30, 101))   # searched: every fifth, then the four below the first pass


def scores(bench, reference, paths):
    output = subprocess.run([bench, "score", reference] + paths, check=True, capture_output=True, text=True).stdout
    return [float(line.split("\t")[1]) for line in output.splitlines()]


def pillow(reference_path, quality, full_chroma):
    buffer = io.BytesIO()
    Image.open(reference_path).save(buffer, "JPEG", quality=quality, optimize=True,
                                    **({"subsampling": 0} if full_chroma else {}))
    return buffer.getvalue()


def libvips(reference_path, quality, full_chroma):
    image = pyvips.Image.new_from_file(reference_path, access="sequential")
    return image.jpegsave_buffer(Q=quality, optimize_coding=True, **({"subsample_mode": "off"} if full_chroma else {}))


def scored(bench, workdir, name, reference, encode, qualities, full_chroma):
    paths, sizes = [], []
    for quality in qualities:
        data = encode(reference, quality, full_chroma)
        path = os.path.join(workdir, f"{name}.peer.{quality}.jpg")
        with open(path, "wb") as file:
            file.write(data)
        paths.append(path)
        sizes.append(len(data))
    result = list(zip(sizes, qualities, scores(bench, reference, paths)))
    for path in paths:
        os.remove(path)
    return result


def smallest_reaching(bench, workdir, name, reference, encode, score):
    """Every fifth quality first, then the four below the first that reaches the score."""
    for full_chroma in (False, True):
        coarse = scored(bench, workdir, name, reference, encode, QUALITIES[::5], full_chroma)   # 30, 35, ..., 100
        first = next((quality for _, quality, s in coarse if s >= score), None)
        if first is None:
            continue
        fine = scored(bench, workdir, name, reference, encode, [q for q in range(first - 4, first) if q >= 1], full_chroma)
        size, quality, s = min(entry for entry in coarse + fine if entry[2] >= score)
        return size, f"q{quality}{' 4:4:4' if full_chroma else ''}", s
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--target", type=int, default=80)
    parser.add_argument("--generated", type=int, default=50)
    parser.add_argument("--format", choices=["jpeg", "webp", "webp_when_smaller"], default="jpeg")
    parser.add_argument("--workdir", default="/tmp/quality_peers")
    parser.add_argument("files", nargs="*")
    arguments = parser.parse_args()
    os.makedirs(os.path.join(arguments.workdir, "ours"), exist_ok=True)

    images = []
    for path in arguments.files:
        image = Image.open(path)
        if image.mode in ("RGBA", "LA", "P"):
            image = image.convert("RGBA")
            image = Image.alpha_composite(Image.new("RGBA", image.size, (255, 255, 255, 255)), image)
        images.append((os.path.splitext(os.path.basename(path))[0], quality_images.fit(image.convert("RGB"))))
    images += quality_images.generated(arguments.generated)
    references = []
    for name, image in images:
        reference = os.path.join(arguments.workdir, f"{name}.png")
        image.save(reference)
        references.append(reference)
    output = subprocess.run([arguments.bench, "quality", "--repeat", "1", "--quality-target", str(arguments.target),
                             "--format", arguments.format, "--output", os.path.join(arguments.workdir, "ours")] + references,
                            check=True, capture_output=True, text=True).stdout
    ours = {}
    for line in output.splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) >= 7 and parts[6] != "-":
            ours[parts[0]] = (int(parts[3]), f"q{parts[5]}", float(parts[6]))

    peers = {"Pillow": pillow}
    if pyvips is not None:
        peers["libvips"] = libvips
    print("image\tours bytes (q, score)\t" + "\t".join(f"{p} bytes (q, score)" for p in peers) + "\tours/best peer")
    logs, above, below_target = [], 0, 0
    for (name, _), reference in zip(images, references):
        if reference not in ours:
            print(f"{name}\tno searched output")
            continue
        size, quality, score = ours[reference]
        below_target += score < arguments.target
        found = {peer: smallest_reaching(arguments.bench, arguments.workdir, name, reference, encode, score)
                 for peer, encode in peers.items()}
        cells = [f"{f[0]} ({f[1]}, {f[2]:.1f})" if f else "unreached" for f in found.values()]
        reached = [f[0] for f in found.values() if f]
        ratio = size / min(reached) if reached else None
        if ratio is not None:
            logs.append(math.log(ratio))
            above += ratio > 1.0
        print(f"{name}\t{size} ({quality}, {score:.1f})\t" + "\t".join(cells)
              + f"\t{ratio:.3f}" if ratio is not None else "\tpeers unreached", flush=True)
    if logs:
        print(f"geometric mean of ours / best peer bytes at equal score: {math.exp(sum(logs) / len(logs)):.3f} over "
              f"{len(logs)} images; {above} above 1.0; {below_target} of ours below the target {arguments.target}"
              + ("" if pyvips else "; libvips skipped (pyvips unavailable)"))


if __name__ == "__main__":
    main()
