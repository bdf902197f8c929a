#!/usr/bin/env python3
"""PSNR of our renditions against a float reference, so that a faster decode or resize can be shown not to cost
quality.

The reference for each source: Pillow decodes it at full size (accurate integer IDCT, fancy upsampling), then
resizes each channel as 32-bit float with Lanczos3 to the size of our rendition and rounds once at the end.

    scripts/resize_quality.py [--bench PATH] [--width W] [--height H] FILE...

For each file it runs `richpush-bench transform --format png` (the resized pixels, losslessly) and the default
JPEG rendition, and prints the PSNR (dB, RGB) of both against the reference. Needs pillow and numpy.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy
from PIL import Image


def float_reference(path, size):
    with Image.open(path) as image:
        image = image.convert("RGB")
        channels = [channel.convert("F").resize(size, Image.LANCZOS) for channel in image.split()]
    planes = [numpy.asarray(channel, dtype=numpy.float64) for channel in channels]
    return numpy.clip(numpy.rint(numpy.stack(planes, axis=-1)), 0, 255)


def psnr(reference, path):
    with Image.open(path) as image:
        pixels = numpy.asarray(image.convert("RGB"), dtype=numpy.float64)
    if pixels.shape != reference.shape:
        raise SystemExit(f"{path}: {pixels.shape} does not match the reference {reference.shape}")
    error = numpy.mean((pixels - reference) ** 2)
    return math.inf if error == 0 else 10 * math.log10(255 * 255 / error)


def render(bench, files, width, height, output_format, directory):
    command = bench.split() + ["transform", "--repeat", "1", "--width", str(width), "--height", str(height),
                               "--format", output_format, "--output", directory] + files
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=".build/release/richpush-bench")
    parser.add_argument("--width", type=int, default=1038)
    parser.add_argument("--height", type=int, default=1038)
    parser.add_argument("files", nargs="+")
    arguments = parser.parse_args()
    print("file\tpixels PSNR (dB)\tJPEG PSNR (dB)\tJPEG bytes")
    with tempfile.TemporaryDirectory() as lossless, tempfile.TemporaryDirectory() as lossy:
        render(arguments.bench, arguments.files, arguments.width, arguments.height, "png", lossless)
        render(arguments.bench, arguments.files, arguments.width, arguments.height, "jpeg", lossy)
        for path in arguments.files:
            name = os.path.splitext(os.path.basename(path))[0]
            png, jpeg = os.path.join(lossless, name + ".png"), os.path.join(lossy, name + ".jpg")
            with Image.open(png) as image:
                reference = float_reference(path, image.size)
            print(f"{os.path.basename(path)}\t{psnr(reference, png):.2f}\t{psnr(reference, jpeg):.2f}\t"
                  f"{os.path.getsize(jpeg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
