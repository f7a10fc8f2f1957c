#!/usr/bin/env python3
"""A second, independent reader of navstudio nav packages (format versions 2 and 3).

Written from docs/package-format.md alone, with the standard library and the `zstandard`
package, to prove that page is enough to read a package outside Rust. As a library:

    import navpkg
    pkg = navpkg.read("maps/showcase.navpkg")
    land = pkg.layers[0]
    land.cost[y * pkg.width + x]      # 1..254 cost, 255 wall
    land.islands[y * pkg.width + x]   # island id, 0 = wall

As a check, against the navstudio binary's own reading of the same file:

    python3 tools/navpkg.py PACKAGE --check NAVSTUDIO_BINARY

compares every movement type's portal counts, cells per island id and cost histogram with
`navstudio info --json`, and its cost and island grids pixel by pixel with
`navstudio export --layer cost|islands`. Exit status 0 when everything agrees.
"""

import array
import colorsys
import io
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import zstandard

MAGIC = b"NAVSTPKG"
HEADER_LEN = 24
MIXED = 0xFFFFFFFF
WALL = 255


class PackageError(Exception):
    """The file is not a readable version 2 package."""


class Layer:
    """One movement type: its cost and island grids, portal windows, graph and flows."""

    def __init__(self, name):
        self.name = name
        self.cost = None  # bytearray, row-major, one byte per cell
        self.islands = None  # array('I'), row-major island id per cell
        self.island_count = 0
        self.windows = []  # (sector_a, sector_b, horizontal, border, start, length)
        self.edges = 0
        self.flow_tiles = 0  # tiles stored, summed over regions
        self.flow_nodes = 0  # portal nodes whose flow tile is stored


class Package:
    def __init__(self, manifest):
        self.manifest = manifest
        self.width = manifest["width"]
        self.height = manifest["height"]
        self.sector_size = manifest["sector_size"]
        self.sectors_x = math.ceil(self.width / self.sector_size)
        self.sectors_y = math.ceil(self.height / self.sector_size)
        self.region_sectors = manifest["region_sectors"]
        self.regions_x = math.ceil(self.sectors_x / self.region_sectors)
        self.regions_y = math.ceil(self.sectors_y / self.region_sectors)
        self.layers = [Layer(l["name"]) for l in manifest["layers"]]

    def sector_rect(self, s):
        """(x0, y0, w, h) of sector s; edge sectors may be partial."""
        sx, sy = s % self.sectors_x, s // self.sectors_x
        x0, y0 = sx * self.sector_size, sy * self.sector_size
        return x0, y0, min(self.sector_size, self.width - x0), min(self.sector_size, self.height - y0)

    def region_sectors_of(self, r):
        """The sectors of region r, row-major (ascending sector ids)."""
        rx, ry = r % self.regions_x, r // self.regions_x
        rs = self.region_sectors
        for sy in range(ry * rs, min((ry + 1) * rs, self.sectors_y)):
            for sx in range(rx * rs, min((rx + 1) * rs, self.sectors_x)):
                yield sy * self.sectors_x + sx


class Bytes:
    """Little-endian reads that never run past the end."""

    def __init__(self, data, what):
        self.data, self.pos, self.what = data, 0, what

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise PackageError(f"{self.what}: truncated")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u32s(self, n):
        return array.array("I", self.take(4 * n)) if sys.byteorder == "little" else _swapped(self.take(4 * n))

    def varint(self):
        v, shift = 0, 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7
            if shift > 28:
                raise PackageError(f"{self.what}: number longer than 5 bytes")

    def signed(self):
        z = self.varint()
        return (z >> 1) ^ -(z & 1)

    def finish(self):
        if self.pos != len(self.data):
            raise PackageError(f"{self.what}: {len(self.data) - self.pos} bytes after the end")


def _swapped(raw):
    a = array.array("I", raw)
    a.byteswap()
    return a


# Chunk kinds this reader reads (a package may require only these). The search tables
# (alt_landmarks, hierarchy, levels, level_cells) are known and left undecoded: this reader
# plans no paths, so the routes they shape are not its answers.
KNOWN_KINDS = {"windows", "graph", "sector_islands", "cost", "island_fields", "flows",
               "alt_landmarks", "hierarchy", "levels", "level_cells", "links"}


def read(path):
    """Reads and decodes a version 2 package; raises PackageError on anything wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER_LEN or data[:8] != MAGIC:
        raise PackageError(f"{path}: not a nav package")
    version, manifest_len, manifest_crc, _ = struct.unpack_from("<IIII", data, 8)
    if version not in (2, 3):
        raise PackageError(f"{path}: format version {version}; this reader reads versions 2 and 3")
    text = data[HEADER_LEN : HEADER_LEN + manifest_len]
    if len(text) != manifest_len or zlib.crc32(text) != manifest_crc:
        raise PackageError(f"{path}: manifest truncated or corrupted")
    pkg = Package(json.loads(text))
    pkg.version = version
    # Version 3: the chunk kinds a reader must understand to use the package.
    for kind in pkg.manifest.get("requires", []):
        if kind not in KNOWN_KINDS:
            raise PackageError(f"{path}: requires chunk kind {kind!r}, which this reader does not read")

    chunks = {}
    expected = HEADER_LEN + manifest_len
    dctx = zstandard.ZstdDecompressor()
    for c in pkg.manifest["chunks"]:
        if c["offset"] != expected:
            raise PackageError(f"{path}: chunk at {c['offset']}, expected {expected}")
        stored = data[c["offset"] : c["offset"] + c["stored_len"]]
        expected += c["stored_len"]
        if len(stored) != c["stored_len"] or zlib.crc32(stored) != c["crc32"]:
            raise PackageError(f"{path}: {c['kind']} chunk truncated or corrupted")
        if c["kind"] == "level_cells":
            # Several zstd frames (the top level's, then one per cell), read one after another.
            reader = dctx.stream_reader(io.BytesIO(stored), read_across_frames=True)
            raw = reader.read(c["raw_len"] + 1)
        else:
            raw = dctx.decompress(stored, max_output_size=c["raw_len"])
        if len(raw) != c["raw_len"]:
            raise PackageError(f"{path}: {c['kind']} chunk decompresses to the wrong length")
        chunks[(c["layer"], c["kind"], c.get("region"))] = raw
    if expected != len(data):
        raise PackageError(f"{path}: the chunks do not end where the file ends")

    def chunk(layer, kind, region=None):
        try:
            return Bytes(chunks[(layer, kind, region)], f"{kind} chunk of layer {layer}")
        except KeyError:
            raise PackageError(f"{path}: no {kind} chunk for layer {layer} region {region}") from None

    regions = pkg.regions_x * pkg.regions_y
    sectors = pkg.sectors_x * pkg.sectors_y
    for i, layer in enumerate(pkg.layers):
        # Cost: clear sectors cost 1 everywhere; the rest are stored per region.
        layer.cost = bytearray(b"\x01" * (pkg.width * pkg.height))
        for r in range(regions):
            b = chunk(i, "cost", r)
            ids = list(pkg.region_sectors_of(r))
            flags = b.take(len(ids))
            for s, flag in zip(ids, flags):
                if flag:
                    x0, y0, w, h = pkg.sector_rect(s)
                    tile = b.take(w * h)
                    for row in range(h):
                        at = (y0 + row) * pkg.width + x0
                        layer.cost[at : at + w] = tile[row * w : (row + 1) * w]
            b.finish()

        # Islands: one id per sector, per-cell ids for mixed sectors.
        b = chunk(i, "sector_islands")
        layer.island_count = b.u32()
        if b.u32() != sectors:
            raise PackageError(f"{path}: sector count differs from the map size")
        sector_island = b.u32s(sectors)
        b.finish()
        layer.islands = array.array("I", bytes(4 * pkg.width * pkg.height))
        for s, island in enumerate(sector_island):
            if island != MIXED and island != 0:
                x0, y0, w, h = pkg.sector_rect(s)
                for row in range(h):
                    at = (y0 + row) * pkg.width + x0
                    layer.islands[at : at + w] = array.array("I", [island] * w)
        for r in range(regions):
            b = chunk(i, "island_fields", r)
            for _ in range(b.u32()):
                s = b.u32()
                x0, y0, w, h = pkg.sector_rect(s)
                # The ids that occur, then per cell its index among them, low bits first.
                ids = b.u32s(b.u32())
                bits = max(len(ids) - 1, 1).bit_length()
                packed = int.from_bytes(b.take((w * h * bits + 7) // 8), "little")
                mask = (1 << bits) - 1
                index = [(packed >> (c * bits)) & mask for c in range(w * h)]
                if not ids or max(index) >= len(ids):
                    raise PackageError(f"{path}: island field of sector {s} names no id")
                field = array.array("I", [ids[k] for k in index])
                for row in range(h):
                    at = (y0 + row) * pkg.width + x0
                    layer.islands[at : at + w] = field[row * w : (row + 1) * w]
            b.finish()

        # Portal windows: delta-coded border ids, starts relative to the border's first cell.
        b = chunk(i, "windows")
        border = 0
        for _ in range(b.u32()):
            border += b.varint()
            sector_a, horizontal = border // 2, border % 2 == 1
            sector_b = sector_a + (pkg.sectors_x if horizontal else 1)
            xa, ya, _, _ = pkg.sector_rect(sector_a)
            xb, yb, _, _ = pkg.sector_rect(sector_b)
            first, line = (xa, yb) if horizontal else (ya, xb)
            start, length = first + b.varint(), b.varint()
            layer.windows.append((sector_a, sector_b, horizontal, line, start, length))
        b.finish()

        b = chunk(i, "graph")
        nodes = b.u32()
        if nodes != 2 * len(layer.windows):
            raise PackageError(f"{path}: graph has {nodes} nodes for {len(layer.windows)} windows")
        for node in range(nodes):
            for _ in range(b.varint()):
                if not 0 <= node + b.signed() < nodes:
                    raise PackageError(f"{path}: graph edge out of range")
                b.varint()
                layer.edges += 1
        b.finish()

        for r in range(regions):
            b = chunk(i, "flows", r)
            count = b.u32()
            lens = b.u32s(count)
            for n in lens:
                tile = b.take(n)
                if any((f & 0x0F) > 7 and (f & 0x0F) != 0x0F for f in tile):
                    raise PackageError(f"{path}: unknown flow direction")
                # Fine flags 0x40 / 0x80: one at most, and only with a direction.
                if any(f & 0xC0 and ((f & 0xC0) == 0xC0 or (f & 0x0F) > 7) for f in tile):
                    raise PackageError(f"{path}: a fine flow flag without a direction")
            node_count = b.u32()
            if any(t >= count for t in b.u32s(node_count)):
                raise PackageError(f"{path}: node refers to a missing flow tile")
            b.finish()
            layer.flow_tiles += count
            layer.flow_nodes += node_count
    pkg.links = read_links(chunks.get((0, "links", None)), pkg, path)
    return pkg


LINK_KINDS = ("walk", "ride", "teleport", "drop")
LINK_COST_MODES = ("per_metre", "direct", "time")


def read_links(raw, pkg, path):
    """The links chunk: a u32 count, then 52-byte records (docs/package-format.md)."""
    if raw is None:
        return []
    b = Bytes(raw, "links chunk")
    count = b.u32()
    links = []
    for i in range(count):
        rec = b.take(52)
        (link_id, ax, ay, aw, ah, bx, by, bw, bh, types, flags, kind, mode, zero, value, width,
         capacity, period) = struct.unpack("<IIIHHIIHHIBBBBffIf", rec)
        if flags & ~3 or zero or kind > 3 or mode > 2:
            raise PackageError(f"{path}: link record {i} has an unknown kind, cost mode or flag")
        for x, y, w, h in ((ax, ay, aw, ah), (bx, by, bw, bh)):
            if not (1 <= w <= 16 and 1 <= h <= 16) or x + w > pkg.width or y + h > pkg.height:
                raise PackageError(f"{path}: link {link_id} has an end off the map")
        links.append({"id": link_id, "a": (ax, ay, aw, ah), "b": (bx, by, bw, bh), "types": types,
                      "two_way": bool(flags & 1), "enabled": not flags & 2,
                      "kind": LINK_KINDS[kind], "cost": (LINK_COST_MODES[mode], value),
                      "width_m": width, "capacity": capacity, "period_s": period})
    b.finish()
    return links


# --- checking against the navstudio binary -----------------------------------------------


def read_png(path):
    """(width, height, channels, pixel bytes) of an 8-bit grey or RGB PNG."""
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (0, 2), "8-bit grey or RGB expected"
    bpp = 1 if colour == 0 else 3
    raw, stride = zlib.decompress(idat), width * bpp
    out, prev = bytearray(), bytearray(stride)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                row[x] = (row[x] + a) & 0xFF
            elif kind == 2:
                row[x] = (row[x] + b) & 0xFF
            elif kind == 3:
                row[x] = (row[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out += row
        prev = row
    return width, height, bpp, bytes(out)


def check(path, binary):
    """Compares this reader with the navstudio binary; returns a list of disagreements."""
    pkg = read(path)
    info = json.loads(subprocess.run([binary, "info", "--json", path], check=True,
                                     capture_output=True, text=True).stdout)
    problems = []

    def same(what, ours, theirs):
        if ours != theirs:
            problems.append(f"{what}: this reader {ours!r}, navstudio {theirs!r}")

    same("format version", pkg.version, info["version"])
    same("links", len(pkg.links), info.get("links", 0))
    same("map size", (pkg.width, pkg.height), (info["manifest"]["width"], info["manifest"]["height"]))
    with tempfile.TemporaryDirectory() as tmp:
        for layer, theirs in zip(pkg.layers, info["layers"]):
            n = layer.name
            same(f"{n} windows", len(layer.windows), theirs["windows"])
            same(f"{n} portal nodes", 2 * len(layer.windows), theirs["nodes"])
            same(f"{n} nodes with a flow tile", layer.flow_nodes, theirs["nodes"])
            same(f"{n} graph edges", layer.edges, theirs["edges"])
            same(f"{n} islands", layer.island_count, theirs["islands"])
            cells = [0] * (layer.island_count + 1)
            for island in layer.islands:
                cells[island] += 1
            same(f"{n} cells per island id", cells, theirs["island_cells"])
            histogram = [0] * 256
            for c in layer.cost:
                histogram[c] += 1
            same(f"{n} cost histogram", histogram, theirs["cost_histogram"])

            png = os.path.join(tmp, f"{n}.cost.png")
            subprocess.run([binary, "export", path, "--layer", "cost", "--type", n, "-o", png],
                           check=True, capture_output=True)
            _, _, _, pixels = read_png(png)
            same(f"{n} cost grid (cells that differ)", 0,
                 sum(1 for a, b in zip(pixels, layer.cost) if a != b))

            png = os.path.join(tmp, f"{n}.islands.png")
            subprocess.run([binary, "export", path, "--layer", "islands", "--type", n, "-o", png],
                           check=True, capture_output=True)
            _, _, _, pixels = read_png(png)
            colour_of = [island_colour(i) for i in range(layer.island_count + 1)]
            differ = sum(1 for k, island in enumerate(layer.islands)
                         if pixels[3 * k : 3 * k + 3] != colour_of[island])
            same(f"{n} island grid (cells whose export colour is not their id's)", 0, differ)
    return problems


def island_colour(island):
    """The export's colour of an island id (docs/editor.md: golden-ratio hues, walls black)."""
    if island == 0:
        return bytes(3)
    hue = (island * 0.61803398875) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.65, 0.95)
    return bytes(int(v * 255) for v in (r, g, b))


def main(argv):
    if len(argv) == 2:
        pkg = read(argv[1])
        print(f"{argv[1]}: {pkg.width} × {pkg.height}, {len(pkg.manifest['chunks'])} chunks, "
              f"{len(pkg.links)} links")
        for layer in pkg.layers:
            walls = layer.cost.count(WALL)
            print(f"  {layer.name}: {len(layer.windows)} windows, {layer.edges} edges, "
                  f"{layer.island_count} islands, {walls} wall cells, {layer.flow_tiles} flow tiles")
        return 0
    if len(argv) == 4 and argv[2] == "--check":
        problems = check(argv[1], argv[3])
        for p in problems:
            print(f"DISAGREE {p}")
        print(f"{argv[1]}: " + ("this reader and navstudio agree" if not problems
                                else f"{len(problems)} disagreements"))
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
