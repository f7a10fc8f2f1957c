#!/usr/bin/env python3
"""Re-makes the bad-input corpus in this folder (tests/bad_inputs).

Each file is malformed in one documented way (see README.md here). The packages are cut
from a real package of maps/small.ron, so run from the repository root after
`navstudio bake maps/small.ron -o /tmp/small.navpkg`:

    python3 tests/bad_inputs/make_corpus.py /tmp/small.navpkg
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def put(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def png(width, height, bit_depth=8, colour=0, rows=None, ihdr_only=False, bad_crc=False):
    def chunk(kind, body, crc_ok=True):
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        if not crc_ok:
            crc ^= 0xDEADBEEF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour, 0, 0, 0))
    if ihdr_only:
        return sig + ihdr
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour] * (2 if bit_depth == 16 else 1)
    raw = rows if rows is not None else b"".join(
        b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(width * bpp)) for y in range(height)
    )
    idat = chunk(b"IDAT", zlib.compress(raw), crc_ok=not bad_crc)
    return sig + ihdr + idat + chunk(b"IEND", b"")


good_png = png(32, 32)

# --- heightmaps -----------------------------------------------------------------------
put("png_truncated_half.png", good_png[: len(good_png) // 2])
put("png_truncated_in_header.png", good_png[:20])
put("png_empty.png", b"")
put("png_not_an_image.png", "this is a text file named like a PNG\n")
put("png_huge_claimed_100000x100000.png", png(100000, 100000, ihdr_only=True))
put("png_huge_claimed_in_idat.png", png(70000, 70000, rows=b"\x00" * 64))
put("png_zero_width.png", png(0, 16, ihdr_only=True))
put("png_1xN_16bit.png", png(1, 9, bit_depth=16))
put("edge_png_16bit_odd_size_3x2.png", png(3, 2, bit_depth=16))
put("png_bad_idat_crc.png", png(16, 16, bad_crc=True))
put("png_idat_too_short.png", png(16, 16, rows=b"\x00" * 10))
put("png_jpeg_magic.png", b"\xff\xd8\xff\xe0" + b"\x00" * 64)
put("raw_odd_byte_count.r16", b"\x01\x02\x03")
put("raw_not_square_6_samples.r16", b"\x00\x01" * 6)
put("raw_empty.r16", b"")
put("hgt_wrong_size.hgt", b"\x00\x01" * 1000)
put("map_no_header.map", "@@@@\n....\n")
put("map_height_says_more_rows.map", "type octile\nheight 4\nwidth 4\nmap\n....\n....\n")
put("map_unknown_char.map", "type octile\nheight 2\nwidth 2\nmap\n.?\n..\n")
put("map_huge_dimensions.map", "type octile\nheight 100000\nwidth 100000\nmap\n..\n")
put("map_short_row.map", "type octile\nheight 2\nwidth 4\nmap\n....\n..\n")

# --- map documents (RON) --------------------------------------------------------------
for support in ("small.png", "small.paint.all.png"):
    with open(os.path.join(HERE, "..", "..", "maps", support), "rb") as f:
        put(support, f.read())
with open(os.path.join(HERE, "..", "..", "maps", "small.ron")) as f:
    small = f.read()


def doc(text, name):
    # Beside the copies of small.png and small.paint.all.png kept here, so each document
    # fails only for its one defect.
    put(name, text)


def swap(old, new):
    assert old in small, old
    return small.replace(old, new, 1)


put("ron_truncated.ron", small[: len(small) // 2])
put("ron_not_ron.ron", "{\"json\": true}\n")
put("ron_empty.ron", "")
put("ron_deep_nesting.ron", "(" * 20000 + ")" * 20000)
put("ron_deep_list_nesting.ron", "(version: 1, name: " + "[" * 5000 + "]" * 5000 + ")")
doc(swap("version: 1", "version: 99"), "ron_future_version.ron")
doc(swap("version: 1", "version: 0"), "ron_old_version.ron")
doc(swap("version: 1", "version: 99999999999999999999999"), "ron_huge_version.ron")
doc(swap("cell_size_m: 1.0", "cell_size_m: -1.0"), "ron_negative_cell_size.ron")
doc(swap("cell_size_m: 1.0", "cell_size_m: 1e400"), "ron_infinite_cell_size.ron")
doc(swap("sector_size: 10", "sector_size: 0"), "ron_sector_size_zero.ron")
doc(swap("sector_size: 10", "sector_size: 70000"), "ron_sector_size_huge.ron")
doc(swap("max_slope_deg:", "max_slope_degrees:"), "ron_unknown_movement_field.ron")
doc(swap("cell_size_m:", "colour: 3,\n    cell_size_m:"), "ron_unknown_top_level_field.ron")
doc(swap('"small.png"', '"does_not_exist.png"'), "ron_missing_heightmap.ron")
doc(swap('"small.paint.all.png"', '"../../../etc/passwd.png"'), "ron_paint_path_escapes.ron")
put("ron_random_bytes.ron", bytes((i * 73 + 41) % 256 for i in range(512)))

# --- packages (format version 2) ---------------------------------------------------------
# The pkg_v1_* files are version 1 packages damaged the same ways, made by this script's
# version 1 section before format version 2 (see git history); they stay because version 1
# packages are still read.
pkg = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else None
if pkg is not None:
    import json

    assert pkg[8:12] == struct.pack("<I", 2), "bake the package with this navstudio (format 2)"
    manifest_len = struct.unpack("<I", pkg[12:16])[0]
    manifest = json.loads(pkg[24 : 24 + manifest_len])
    chunks = [pkg[c["offset"] : c["offset"] + c["stored_len"]] for c in manifest["chunks"]]

    def join(m, chunks, fix_offsets=True):
        """A package with valid checksums around whatever lie `m` tells."""
        start = 24
        while True:
            offset = start
            for c, stored in zip(m["chunks"], chunks):
                if fix_offsets:
                    c["offset"] = offset
                    c["stored_len"] = len(stored)
                c["crc32"] = zlib.crc32(stored) & 0xFFFFFFFF
                offset += len(stored)
            text = json.dumps(m, separators=(",", ":")).encode()
            if 24 + len(text) == start or not fix_offsets:
                head = b"NAVSTPKG" + struct.pack("<IIII", 2, len(text), zlib.crc32(text) & 0xFFFFFFFF, 0)
                return head + text + b"".join(chunks)
            start = 24 + len(text)

    def lie(edit):
        m = json.loads(json.dumps(manifest))
        edit(m)
        return join(m, chunks)

    put("pkg_truncated_header.navpkg", pkg[:20])
    put("pkg_truncated_half.navpkg", pkg[: len(pkg) // 2])
    put("pkg_truncated_last_byte.navpkg", pkg[:-1])
    flipped = bytearray(pkg)
    flipped[len(pkg) * 2 // 3] ^= 0x10
    put("pkg_bit_flipped.navpkg", bytes(flipped))
    put("pkg_wrong_magic.navpkg", b"NOTAPKG!" + pkg[8:])
    future = bytearray(pkg)
    future[8:12] = struct.pack("<I", 3)
    put("pkg_future_version.navpkg", bytes(future))
    huge = bytearray(pkg)
    huge[12:16] = struct.pack("<I", 1 << 30)
    put("pkg_huge_manifest_length.navpkg", bytes(huge))

    def raw_len(m):
        # A cost chunk claims 4 GiB: must be refused before allocating it.
        next(c for c in m["chunks"] if c["kind"] == "cost")["raw_len"] = 1 << 32

    put("pkg_lying_raw_length.navpkg", lie(raw_len))

    def offset(m):
        m["chunks"][2]["offset"] += 10**12

    m = json.loads(json.dumps(manifest))
    offset(m)
    put("pkg_lying_offset.navpkg", join(m, chunks, fix_offsets=False))
    put("pkg_manifest_lies_about_size.navpkg", lie(lambda m: m.update(width=96000)))
    put("pkg_manifest_no_layers.navpkg", lie(lambda m: m.update(layers=[])))
    put("pkg_missing_chunk.navpkg", lie(lambda m: m["chunks"][1].update(kind="later_kind")))
    text = b"(map_name: \"small\")"
    put("pkg_manifest_not_json.navpkg",
        b"NAVSTPKG" + struct.pack("<IIII", 2, len(text), zlib.crc32(text) & 0xFFFFFFFF, 0) + text)
    put("pkg_random_bytes.navpkg", bytes((i * 131 + 7) % 251 for i in range(4096)))
    put("pkg_empty.navpkg", b"")
