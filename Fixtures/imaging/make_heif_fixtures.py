#!/usr/bin/env python3
"""Generates the HEIF (HEIC and AVIF) imaging fixtures in this folder with heif-enc (Debian libheif-examples 1.15),
then edits boxes of its output where heif-enc has no option for what a test needs. Needs only the standard library.

Sources are the other fixtures: orientation_*.jpg (64x48 upright: red top-left, green top-right, blue bottom-left,
white bottom-right, stored transformed with an EXIF orientation), PngSuite's basn6a08.png (32x32 RGBA with
translucent pixels) and icc_srgb.jpg (40x30 with an sRGB ICC profile).

- photo.heic / photo.avif: orientation_1.jpg, with a 16 px thumbnail item (the primary image must be used).
- alpha.heic / alpha.avif: basn6a08.png (the alpha plane is an auxiliary image).
- ten_bit.heic: PngSuite's basn2c16.png (16-bit RGB) coded at 10 bits per channel.
- icc.heic: icc_srgb.jpg; heif-enc stores its profile in a colr 'prof' box, associated with the grid.
- icc_on_tile.heic: the same with the colr box associated with the grid's tile instead.
- rotated.heic: orientation_6.jpg (stored 48x64, EXIF orientation 6) plus an irot box (270 degrees anti-clockwise,
  what orientation 6 means): upright 64x48 when irot is applied once and EXIF orientation is ignored, as the HEIF
  specification requires and iPhones write.
- mirrored.heic: orientation_2.jpg (stored mirrored left-right, EXIF orientation 2) plus imir (axis 1 in libheif
  1.15's reading: see the note at `mirror`) : upright 64x48.
- second_primary.heic: orientation_1.jpg and basn6a08.png in one file, the pitm box pointing at the second.
- huge_ispe.heic: photo.heic with every ispe claiming 100000x100000; many_pixels_ispe.heic: 16000x16000 (within
  the side limit, over the 40 MP limit).
- many_tiles.heic: a grid of 64x64 tiles, 4096 references to one 64x64 tile (a 4096x4096 image that costs 4096
  decoder runs).
- grid_canvas_bomb.heic: one 64x64 tile whose grid descriptor asks for a 16000x16000 canvas under an ispe of 64x64
  (808 bytes; libheif 1.15 sizes the canvas from the descriptor: heif-convert takes 1.1 GB and 2.7 s on it).
- large_grid.heic: 48 references to one textured 512x512 tile, laid out 8x6 as an iPhone lays out a 12 MP photo: a
  few KB that cost a full 12 MP HEVC decode (for the deadline tests).
- oversized_tiles.heic: a 2x2 grid with a 64x64 canvas whose tiles' ispe claim 6000x6000 each.
- two_ispe.heic: photo.heic with a second ispe (16000x16000) on the primary image; libheif 1.15 sizes an image by
  its last ispe.
- two_alpha_planes.heic: alpha.heic with a thumbnail that is made a second alpha plane of the primary image (an
  alpha auxC and an auxl reference); libheif 1.15 takes the last alpha plane of its own size.
"""
import os
import struct
import subprocess
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CONFORMANCE_PNG = os.path.join(HERE, "..", "conformance", "png")


def heif_enc(inputs, output, *options):
    subprocess.run(["heif-enc", "-q", "90", *options, "-o", output, *inputs], check=True, stdout=subprocess.DEVNULL)
    return open(output, "rb").read()


# --- a minimal ISO base media file editor: top-level boxes, the children of meta and of iprp ---

def boxes(data, start=0, end=None):
    """[(type, payload)] of the boxes in data[start:end] (32-bit sizes only, which is all heif-enc writes)."""
    end = len(data) if end is None else end
    found = []
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        found.append((kind.decode("latin-1"), data[start + 8:start + size]))
        start += size
    return found


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode("latin-1")) + payload


class HEIF:
    def __init__(self, data):
        self.top = boxes(data)
        meta = dict(self.top)["meta"]
        self.meta_header = meta[:4]
        self.meta = boxes(meta, 4)
        self.original_meta_size = 8 + len(meta)

    def child(self, kind):
        return dict(self.meta)[kind]

    def replace(self, kind, payload):
        self.meta = [(k, payload if k == kind else p) for k, p in self.meta]

    def properties(self):
        iprp = boxes(self.child("iprp"))
        return boxes(dict(iprp)["ipco"]), dict(iprp)["ipma"]

    def set_properties(self, properties, ipma):
        ipco = b"".join(box(k, p) for k, p in properties)
        self.replace("iprp", box("ipco", ipco) + box("ipma", ipma))

    def add_property(self, item, kind, payload):
        """Appends a property and associates it (as essential) with `item`, after its other properties."""
        properties, ipma = self.properties()
        properties.append((kind, payload))
        index = len(properties)
        version, flags = ipma[0], int.from_bytes(ipma[1:4], "big")
        count = struct.unpack(">I", ipma[4:8])[0]
        position, entries = 8, []
        for _ in range(count):
            if version < 1:
                item_id = struct.unpack(">H", ipma[position:position + 2])[0]; position += 2
            else:
                item_id = struct.unpack(">I", ipma[position:position + 4])[0]; position += 4
            associations = ipma[position]; position += 1
            width = 2 if flags & 1 else 1
            values = [int.from_bytes(ipma[position + i * width:position + (i + 1) * width], "big") for i in range(associations)]
            position += associations * width
            entries.append((item_id, values))
        rebuilt = ipma[:8]
        for item_id, values in entries:
            if item_id == item:
                values.append((0x8000 if flags & 1 else 0x80) | index)
            rebuilt += struct.pack(">H" if version < 1 else ">I", item_id) + bytes([len(values)])
            rebuilt += b"".join(v.to_bytes(2 if flags & 1 else 1, "big") for v in values)
        self.set_properties(properties, rebuilt)

    def primary(self):
        return struct.unpack(">H", self.child("pitm")[4:6])[0]

    def set_primary(self, item):
        self.replace("pitm", self.child("pitm")[:4] + struct.pack(">H", item))

    def set_ispe(self, width, height):
        properties, ipma = self.properties()
        properties = [(k, p[:4] + struct.pack(">II", width, height) if k == "ispe" else p) for k, p in properties]
        self.set_properties(properties, ipma)

    def serialize(self):
        meta = box("meta", self.meta_header + b"".join(box(k, p) for k, p in self.meta))
        self.shift_iloc(len(meta) - self.original_meta_size)
        meta = box("meta", self.meta_header + b"".join(box(k, p) for k, p in self.meta))
        return b"".join(meta if k == "meta" else box(k, p) for k, p in self.top)

    def shift_iloc(self, delta):
        """Moves file-offset (construction method 0) extents by `delta`: mdat follows meta in heif-enc's files."""
        iloc = bytearray(self.child("iloc"))
        version = iloc[0]
        offset_size, length_size = iloc[4] >> 4, iloc[4] & 15
        base_offset_size, index_size = iloc[5] >> 4, (iloc[5] & 15) if version in (1, 2) else 0
        position = 6
        count_size = 2 if version < 2 else 4
        count = int.from_bytes(iloc[position:position + count_size], "big"); position += count_size
        for _ in range(count):
            position += 2 if version < 2 else 4
            method = 0
            if version in (1, 2):
                method = int.from_bytes(iloc[position:position + 2], "big") & 15; position += 2
            position += 2   # data_reference_index
            base = int.from_bytes(iloc[position:position + base_offset_size], "big")
            if method == 0 and base_offset_size:
                iloc[position:position + base_offset_size] = (base + delta).to_bytes(base_offset_size, "big")
            position += base_offset_size
            extents = int.from_bytes(iloc[position:position + 2], "big"); position += 2
            for _ in range(extents):
                position += index_size
                if method == 0 and not base_offset_size:
                    value = int.from_bytes(iloc[position:position + offset_size], "big")
                    iloc[position:position + offset_size] = (value + delta).to_bytes(offset_size, "big")
                position += offset_size + length_size
        self.replace("iloc", bytes(iloc))


def grid_references(heif):
    """[(kind, from, [to...])] of the iref box (version 0: 16-bit item IDs)."""
    iref = heif.child("iref")
    assert iref[0] == 0
    return [(k, struct.unpack(">H", p[:2])[0], list(struct.unpack(">%dH" % struct.unpack(">H", p[2:4])[0], p[4:])))
            for k, p in boxes(iref, 4)]


def set_grid_references(heif, references):
    payload = heif.child("iref")[:4] + b"".join(
        box(k, struct.pack(">HH", source, len(targets)) + struct.pack(">%dH" % len(targets), *targets))
        for k, source, targets in references)
    heif.replace("iref", payload)


def wrap_in_grid(data, columns, rows):
    """Makes heif-enc's single hvc1 image (item 1, iloc version 0, no idat, no iref) the one tile of a new primary
    grid item 2 of columns x rows references to it, as an iPhone lays out its photos (which use distinct tiles)."""
    heif = HEIF(data)
    assert heif.primary() == 1 and "iref" not in dict(heif.meta) and "idat" not in dict(heif.meta)
    iloc = heif.child("iloc")
    assert iloc[0] == 0 and iloc[4] == 0x44 and iloc[5] == 0x40 and struct.unpack(">H", iloc[6:8]) == (1,), iloc.hex()
    item, reference, base, extents = struct.unpack(">HHIH", iloc[8:18])
    assert item == 1 and extents == 1
    offset, length = struct.unpack(">II", iloc[18:26])
    heif.replace("iloc", bytes([1, 0, 0, 0, 0x44, 0x40]) + struct.pack(">H", 2)
                 + struct.pack(">HHHIHII", 1, 0, 0, base, 1, offset, length)
                 + struct.pack(">HHHIHII", 2, 1, 0, 0, 1, 0, 8))
    iinf = heif.child("iinf")
    grid_entry = box("infe", bytes([2, 0, 0, 0]) + struct.pack(">HH", 2, 0) + b"grid" + b"\0")
    heif.replace("iinf", iinf[:4] + struct.pack(">H", 2) + iinf[6:] + grid_entry)
    tile_width, tile_height = [(w, h) for w, h in [struct.unpack(">II", p[4:12]) for k, p in heif.properties()[0] if k == "ispe"]][0]
    width, height = columns * tile_width, rows * tile_height
    heif.set_primary(2)
    heif.meta.append(("idat", bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height)))
    heif.meta.append(("iref", bytes(4) + box("dimg", struct.pack(">HH", 2, columns * rows) + struct.pack(">H", 1) * (columns * rows))))
    properties, ipma = heif.properties()
    properties.append(("ispe", bytes(4) + struct.pack(">II", width, height)))
    assert ipma[0] == 0 and ipma[3] & 1 == 0
    ipma = ipma[:4] + struct.pack(">I", struct.unpack(">I", ipma[4:8])[0] + 1) + ipma[8:] + struct.pack(">HBB", 2, 1, len(properties))
    heif.set_properties(properties, ipma)
    return heif.serialize()


def tile_grid(data, columns, rows, output, ispe, tile_ispe=None):
    """A grid of columns x rows references to the one tile heif-enc made (a 64x64 one from basn2c08.png): the
    grid descriptor (in idat) says columns x rows tiles and an `output` canvas, the grid's ispe says `ispe`, and
    the tile's ispe says `tile_ispe` when given."""
    heif = HEIF(data)
    references = grid_references(heif)
    grid = heif.primary()
    tile = [t for k, s, t in references if k == "dimg" and s == grid][0][0]
    set_grid_references(heif, [(k, s, [tile] * (columns * rows) if s == grid and k == "dimg" else t)
                               for k, s, t in references])
    idat = heif.child("idat")
    assert len(idat) == 8 and idat[1] & 1 == 0, idat.hex()
    heif.replace("idat", bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", *output))
    properties, ipma = heif.properties()
    for item, size in ((grid, ispe), (tile, tile_ispe)):
        index = [i for i in property_indexes(ipma, item) if properties[i - 1][0] == "ispe"][0]
        if size:
            properties[index - 1] = ("ispe", properties[index - 1][1][:4] + struct.pack(">II", *size))
    heif.set_properties(properties, ipma)
    return heif.serialize()


def move_property(heif, kind, source, target):
    """Moves the association of the `kind` property from item `source` to item `target` (ipma version 0, 7-bit
    indexes)."""
    properties, ipma = heif.properties()
    assert ipma[0] == 0 and ipma[3] & 1 == 0
    count, position, entries = struct.unpack(">I", ipma[4:8])[0], 8, []
    for _ in range(count):
        item_id, associations = struct.unpack(">HB", ipma[position:position + 3])
        entries.append((item_id, list(ipma[position + 3:position + 3 + associations])))
        position += 3 + associations
    moved = [v for item_id, values in entries if item_id == source for v in values if properties[(v & 0x7F) - 1][0] == kind]
    assert len(moved) == 1, moved
    rebuilt = ipma[:8]
    for item_id, values in entries:
        values = [v for v in values if v not in moved] if item_id == source else values
        values = values + moved if item_id == target else values
        rebuilt += struct.pack(">HB", item_id, len(values)) + bytes(values)
    heif.set_properties(properties, rebuilt)


def property_indexes(ipma, item):
    """The 1-based ipco indexes associated with `item` (ipma version 0, 7-bit indexes: heif-enc's layout)."""
    assert ipma[0] == 0 and ipma[3] & 1 == 0
    count, position = struct.unpack(">I", ipma[4:8])[0], 8
    for _ in range(count):
        item_id, associations = struct.unpack(">HB", ipma[position:position + 3])
        values = [v & 0x7F for v in ipma[position + 3:position + 3 + associations]]
        if item_id == item:
            return values
        position += 3 + associations
    return []


def textured_png(path, size):
    """An 8-bit RGB PNG of smooth gradients under a fine deterministic texture, so that the tile costs what a photo
    tile costs to decode."""
    rows = []
    seed = 12345
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            noise = (seed >> 16) % 8
            row += bytes([(x * 255 // size + noise) & 255, (y * 255 // size + noise) & 255, ((x ^ y) + noise) & 255])
        rows.append(bytes(row))
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
                           + chunk(b"IEND", b""))


def write(name, data):
    open(os.path.join(HERE, name), "wb").write(data)


def main():
    with tempfile.TemporaryDirectory() as work:
        def encode(inputs, *options):
            return heif_enc(inputs, os.path.join(work, "out.avif" if "-A" in options else "out.heic"), *options)

        orientation = lambda n: os.path.join(HERE, f"orientation_{n}.jpg")
        alpha_png = os.path.join(CONFORMANCE_PNG, "basn6a08.png")

        write("photo.heic", encode([orientation(1)], "-t", "16"))
        write("photo.avif", encode([orientation(1)], "-A", "-t", "16"))
        write("alpha.heic", encode([alpha_png]))
        write("alpha.avif", encode([alpha_png], "-A"))
        write("icc.heic", encode([os.path.join(HERE, "icc_srgb.jpg")]))
        # 10 bits per channel (from a 16-bit PNG). Debian's aom 3.6 encoder aborts on 10-bit input, so no AVIF one.
        write("ten_bit.heic", encode([os.path.join(CONFORMANCE_PNG, "basn2c16.png")], "-b", "10"))
        # Some writers associate the profile with the grid's tiles only; libheif 1.15 then reports it for the grid.
        tile_profile = HEIF(encode([os.path.join(HERE, "icc_srgb.jpg")]))
        tile = [t for k, s, t in grid_references(tile_profile) if k == "dimg" and s == tile_profile.primary()][0][0]
        move_property(tile_profile, "colr", tile_profile.primary(), tile)
        write("icc_on_tile.heic", tile_profile.serialize())

        rotated = HEIF(encode([orientation(6)]))
        rotated.add_property(rotated.primary(), "irot", bytes([3]))
        write("rotated.heic", rotated.serialize())

        # ISO/IEC 23008-12 says axis 0 is a vertical axis (a left-right flip); libheif 1.15 applies axis 0 as a
        # top-bottom flip and axis 1 as a left-right flip (heif_transform_mirror_direction_vertical = 0), so
        # the fixture is written for the decoder we ship and the test pins that reading.
        mirrored = HEIF(encode([orientation(2)]))
        mirrored.add_property(mirrored.primary(), "imir", bytes([1]))
        write("mirrored.heic", mirrored.serialize())

        two = HEIF(encode([orientation(1), alpha_png]))
        auxiliary = {source for kind, source, _ in grid_references(two) if kind == "auxl"}
        primaries = [source for kind, source, _ in grid_references(two) if kind == "dimg" and source not in auxiliary]
        assert two.primary() == primaries[0] and len(primaries) == 2, primaries
        two.set_primary(primaries[1])
        write("second_primary.heic", two.serialize())

        huge = HEIF(encode([orientation(1)]))
        huge.set_ispe(100_000, 100_000)
        write("huge_ispe.heic", huge.serialize())
        many = HEIF(encode([orientation(1)]))
        many.set_ispe(16_000, 16_000)
        write("many_pixels_ispe.heic", many.serialize())

        tile_source = os.path.join(CONFORMANCE_PNG, "basn2c08.png")
        write("many_tiles.heic", tile_grid(encode([tile_source]), 64, 64, output=(4096, 4096), ispe=(4096, 4096)))
        write("grid_canvas_bomb.heic", tile_grid(encode([tile_source]), 1, 1, output=(16000, 16000), ispe=(64, 64)))
        textured = os.path.join(work, "textured.png")
        textured_png(textured, 512)
        write("large_grid.heic", wrap_in_grid(encode([textured], "-q", "30"), 8, 6))
        write("oversized_tiles.heic", tile_grid(encode([tile_source]), 2, 2, output=(64, 64), ispe=(64, 64),
                                                tile_ispe=(6000, 6000)))

        two_sizes = HEIF(encode([orientation(1)], "-t", "16"))
        two_sizes.add_property(two_sizes.primary(), "ispe", bytes(4) + struct.pack(">II", 16_000, 16_000))
        write("two_ispe.heic", two_sizes.serialize())
        two_alphas = HEIF(encode([alpha_png], "-t", "16"))
        references = grid_references(two_alphas)
        thumbnail = [source for kind, source, targets in references if kind == "thmb" and targets == [two_alphas.primary()]][0]
        two_alphas.add_property(thumbnail, "auxC", bytes(4) + b"urn:mpeg:hevc:2015:auxid:1\0")
        set_grid_references(two_alphas, references + [("auxl", thumbnail, [two_alphas.primary()])])
        write("two_alpha_planes.heic", two_alphas.serialize())


if __name__ == "__main__":
    main()
