#!/usr/bin/env python3
"""Generates the small imaging test fixtures in this folder (run from anywhere; the ICC files embed a creation date).

- orientation_1.jpg .. orientation_8.jpg: a 64x48 upright image whose corners are red (top-left), green
  (top-right), blue (bottom-left) and white (bottom-right), stored transformed so that applying the EXIF
  orientation written in a hand-built APP1 segment makes it upright again. Verified with Pillow's exif_transpose.
- cmyk.jpg + cmyk_source.png: colour patches saved as an Adobe (inverted) CMYK JPEG by Pillow, and the RGB original.
- icc_srgb.jpg / icc_srgb.webp: a JPEG (APP2) and a WebP (VP8X + ICCP) carrying an sRGB ICC profile.
- animated.webp: a 2-frame animated WebP (first frame red, second blue).
- bomb_30000_1bit.png: a valid 30000x30000 1-bit PNG of zeros (~110 KB compressed, 112 MB inflated).
- text_on_white_444.jpg / text_on_white_420.jpg: dark text on white paper (Pillow's default font, lines of 12 random
  words from x = 10), 640x480 at q30 4:4:4 and 333x257 at q60 4:2:0: valid files whose text lines end on MCU seams,
  which the JPEG seam check once refused as damaged.
- animated.gif: a 16x12 GIF of 2 frames (the second a 6x6 patch), written by hand with the standard library
  (LZW with a clear code before every pixel); the seed of the gif fuzz target.
"""
import os
import struct
import zlib

from PIL import Image, ImageCms, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 64, 48


def upright():
    image = Image.new("RGB", (W, H), (128, 128, 128))
    quadrants = {(0, 0): (255, 0, 0), (1, 0): (0, 255, 0), (0, 1): (0, 0, 255), (1, 1): (255, 255, 255)}
    for (qx, qy), colour in quadrants.items():
        image.paste(colour, (qx * W // 2, qy * H // 2, (qx + 1) * W // 2, (qy + 1) * H // 2))
    return image


# Pillow's transform that, applied to the stored image, makes it upright for each orientation, and its inverse.
TO_UPRIGHT = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
              5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
              8: Image.Transpose.ROTATE_90}
INVERSE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
           5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
           8: Image.Transpose.ROTATE_270}


def exif_app1(orientation, big_endian):
    """A minimal EXIF APP1 segment: TIFF header and IFD0 with one entry, Orientation (0x0112, SHORT)."""
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1)
    tiff += struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", orientation, 0)
    tiff += struct.pack(e + "I", 0)
    body = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def make_orientations():
    base = upright()
    for orientation in range(1, 9):
        stored = base if orientation == 1 else base.transpose(INVERSE[orientation])
        path = os.path.join(HERE, f"orientation_{orientation}.jpg")
        stored.save(path, quality=95, subsampling=0)
        data = open(path, "rb").read()
        data = data[:2] + exif_app1(orientation, big_endian=orientation % 2 == 0) + data[2:]
        open(path, "wb").write(data)
        check = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        assert check.size == (W, H), (orientation, check.size)
        assert check.getpixel((2, 2))[0] > 200 and check.getpixel((W - 3, 2))[1] > 200, orientation


def make_cmyk():
    image = Image.new("RGB", (64, 64))
    colours = [(200, 30, 30), (30, 160, 60), (40, 60, 190), (230, 200, 40), (250, 250, 250), (20, 20, 20),
               (120, 80, 160), (90, 200, 210), (180, 120, 70), (128, 128, 128), (255, 140, 0), (0, 100, 100),
               (240, 180, 200), (60, 40, 20), (170, 220, 120), (100, 110, 140)]
    for index, colour in enumerate(colours):
        x, y = (index % 4) * 16, (index // 4) * 16
        image.paste(colour, (x, y, x + 16, y + 16))
    image.save(os.path.join(HERE, "cmyk_source.png"))
    image.convert("CMYK").save(os.path.join(HERE, "cmyk.jpg"), quality=95)


def make_icc():
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    Image.new("RGB", (40, 30), (10, 120, 200)).save(os.path.join(HERE, "icc_srgb.jpg"), quality=90, icc_profile=profile)
    Image.new("RGB", (40, 30), (10, 120, 200)).save(os.path.join(HERE, "icc_srgb.webp"), quality=90, icc_profile=profile)


def make_animated_webp():
    frames = [Image.new("RGB", (32, 24), (255, 0, 0)), Image.new("RGB", (32, 24), (0, 0, 255))]
    frames[0].save(os.path.join(HERE, "animated.webp"), save_all=True, append_images=frames[1:], duration=100,
                   loop=0, lossless=True)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def make_png_bomb():
    side = 30000
    row = b"\x00" * (1 + side // 8)
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")
    open(os.path.join(HERE, "bomb_30000_1bit.png"), "wb").write(data)


def make_animated_gif():
    def frame(left, top, width, height, colours):
        codes = []
        for pixel in range(width * height):
            codes += [4, colours[pixel % len(colours)]]   # clear, then the pixel: the code width stays 3 bits
        codes.append(5)                                   # end of information
        bits = sum(code << (3 * index) for index, code in enumerate(codes))
        data = bits.to_bytes((3 * len(codes) + 7) // 8, "little")
        blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
        return b"\x2c" + struct.pack("<HHHHB", left, top, width, height, 0) + b"\x02" + blocks + b"\x00"

    delay = b"\x21\xf9\x04\x00\x0a\x00\x00\x00"           # graphics control: 100 ms, no transparency
    gif = b"GIF89a" + struct.pack("<HHBBB", 16, 12, 0x81, 0, 0) + bytes([255, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0])
    gif += delay + frame(0, 0, 16, 12, [0, 1]) + delay + frame(5, 3, 6, 6, [2, 3]) + b"\x3b"
    open(os.path.join(HERE, "animated.gif"), "wb").write(gif)


def make_text_on_white():
    import numpy as np
    from PIL import ImageDraw, ImageFont
    rng = np.random.default_rng(29)
    sizes = [(1038, 778), (800, 1038), (1038, 1038), (640, 480), (517, 389), (333, 257)]
    pages = {}
    for index in range(10):
        width, height = sizes[index % len(sizes)]
        image = Image.new("RGB", (width, height), (255, 255, 255))
        draw = ImageDraw.Draw(image)
        font = ImageFont.load_default(size=int(rng.integers(14, 48)))
        y = 10
        while y < height - 20:
            colour = (0, 0, 0) if rng.random() < 0.7 else tuple(int(v) for v in rng.integers(0, 160, 3))
            words = " ".join("".join(chr(int(c)) for c in rng.integers(97, 123, int(rng.integers(2, 9)))) for _ in range(12))
            draw.text((10, y), words, fill=colour, font=font)
            y += int(font.size * 1.5)
        pages[index] = image
    pages[9].save(os.path.join(HERE, "text_on_white_444.jpg"), quality=30, subsampling=0, optimize=True)
    pages[5].save(os.path.join(HERE, "text_on_white_420.jpg"), quality=60, subsampling=2, optimize=True)
    # Lossless, for deringing: its white runs must be exactly white, as a rendered banner's are.
    pages[4].save(os.path.join(HERE, "text_on_white.png"), optimize=True)


def make_text_on_colour_crop():
    """Text on a flat colour (scripts/quality_images.py's gen11), Pillow q70 4:4:4, cropped losslessly by jpegtran to
    the band where a text line starts 3 MCUs from the left edge: the seam check once refused it at 4/8."""
    import subprocess
    import sys
    import tempfile
    sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
    import quality_images
    name, image = quality_images.generated(50)[11]
    assert name == "gen11_text_1038x1038", name
    with tempfile.NamedTemporaryFile(suffix=".jpg") as whole:
        image.convert("RGB").save(whole.name, quality=70, subsampling=0, optimize=True)
        subprocess.run(["jpegtran", "-copy", "none", "-optimize", "-crop", "1038x64+0+776",
                        "-outfile", os.path.join(HERE, "text_on_colour_crop.jpg"), whole.name], check=True)


if __name__ == "__main__":
    make_orientations()
    make_cmyk()
    make_icc()
    make_animated_webp()
    make_png_bomb()
    make_animated_gif()
    make_text_on_white()
    make_text_on_colour_crop()
    for name in sorted(os.listdir(HERE)):
        print(name, os.path.getsize(os.path.join(HERE, name)))
