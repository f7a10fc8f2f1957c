#!/usr/bin/env python3
"""An outside client of the navstudio C API, written from crates/navstudio-capi/include/navstudio.h
alone: Python's ctypes, no Rust. CI runs it from examples/c/run.sh on the showcase package.

It reads the status and state numbers from the header (so it fails when the header and the
library disagree), declares each call it makes as the header does (and checks the header
declares it), then:
  1. answers random requests and checks them against is_reachable, navstudio_cell_cost and
     `navstudio path` (traced length to 2 decimals);
  2. applies overlapping stamps and removes them in both orders: the costs come back;
  3. traces from cells that are not the path's source, where a sample_flow walk arrives;
  4. runs a crowd: 600 frames of 1/60 s are 600 steps, the agents arrive, the crowd can be
     read after its world is freed;
  5. checks every bad input it can think of: each gives the status the header names for that
     situation and a sentence, and nothing crashes.
It prints the slowest call it made. Exit status 0 when every check passed.

    python3 tools/capi_client.py --lib target/debug/libnavstudio_capi.so \\
        --cli target/debug/navstudio --package showcase.navpkg
"""

import argparse
import ctypes as C
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "navstudio-capi",
                      "include", "navstudio.h")


class Cell(C.Structure):
    _fields_ = [("x", C.c_uint32), ("y", C.c_uint32)]


class Rect(C.Structure):
    _fields_ = [("x", C.c_uint32), ("y", C.c_uint32), ("width", C.c_uint32), ("height", C.c_uint32)]


class Vec2(C.Structure):
    _fields_ = [("x", C.c_float), ("y", C.c_float)]


class Archetype(C.Structure):
    _fields_ = [("name", C.c_char_p), ("movement_type", C.c_char_p), ("radius_m", C.c_float),
                ("mass", C.c_float), ("max_force", C.c_float), ("max_speed", C.c_float),
                ("neighbour_radius_m", C.c_float)]


class OrderReport(C.Structure):
    _fields_ = [("order", C.c_uint32), ("moving", C.c_uint32), ("unreachable", C.c_uint32),
                ("lanes", C.c_bool)]


class WorldInfo(C.Structure):
    _fields_ = [("width", C.c_uint32), ("height", C.c_uint32), ("sector_size", C.c_uint32),
                ("cell_size_m", C.c_float), ("movement_type_count", C.c_uint32)]


P = C.c_void_p
# name: (argument types); every function returns NavstudioStatus (an int) unless listed in RESTYPES.
SIGNATURES = {
    "navstudio_world_open": [C.c_char_p, C.POINTER(P)],
    "navstudio_world_open_bytes": [C.c_char_p, C.c_size_t, C.POINTER(P)],
    "navstudio_world_free": [P],
    "navstudio_world_info": [P, C.POINTER(WorldInfo)],
    "navstudio_movement_type_index": [P, C.c_char_p, C.POINTER(C.c_uint32)],
    "navstudio_is_reachable": [P, C.c_uint32, Cell, Cell, C.POINTER(C.c_bool)],
    "navstudio_cell_cost": [P, C.c_uint32, Cell, C.POINTER(C.c_uint8)],
    "navstudio_request_path": [P, C.c_uint32, C.POINTER(Cell), C.c_size_t, Cell, C.POINTER(C.c_uint32)],
    "navstudio_path_release": [P, C.c_uint32],
    "navstudio_sample_flow": [P, C.c_uint32, Vec2, C.POINTER(Vec2)],
    "navstudio_line_of_sight": [P, C.c_uint32, Cell, C.POINTER(C.c_bool)],
    "navstudio_trace_path": [P, C.c_uint32, Cell, C.POINTER(C.c_double), C.POINTER(Cell), C.c_size_t,
                             C.POINTER(C.c_size_t)],
    "navstudio_set_cost": [P, C.c_uint32, Cell, C.c_uint8],
    "navstudio_apply_stamp": [P, C.POINTER(C.c_uint32), C.c_size_t, Rect, C.POINTER(C.c_uint8),
                              C.c_size_t, C.POINTER(C.c_uint32)],
    "navstudio_remove_stamp": [P, C.c_uint32],
    "navstudio_rebuild": [P, C.c_uint64, C.POINTER(C.c_bool)],
    "navstudio_crowd_create": [P, C.c_uint64, C.POINTER(P)],
    "navstudio_crowd_free": [P],
    "navstudio_archetype_default": [C.c_char_p, C.POINTER(Archetype)],
    "navstudio_crowd_add_agent": [P, P, C.POINTER(Archetype), Vec2, C.c_uint32, C.POINTER(C.c_uint32)],
    "navstudio_crowd_order": [P, P, C.POINTER(C.c_uint32), C.c_size_t, Vec2, C.POINTER(OrderReport)],
    "navstudio_crowd_step": [P, P, C.c_uint32],
    "navstudio_crowd_advance": [P, P, C.c_double, C.POINTER(C.c_uint32)],
    "navstudio_crowd_agent_count": [P, C.POINTER(C.c_size_t)],
    "navstudio_crowd_positions": [P, C.POINTER(Vec2), C.c_size_t, C.POINTER(C.c_size_t)],
    "navstudio_crowd_states": [P, C.POINTER(C.c_uint8), C.c_size_t, C.POINTER(C.c_size_t)],
    "navstudio_last_error": [],
}
RESTYPES = {"navstudio_world_free": None, "navstudio_crowd_free": None,
            "navstudio_last_error": C.c_char_p}


class Client:
    """The library behind the header's declarations, each call timed."""

    def __init__(self, lib_path, header_text):
        self.lib = C.CDLL(lib_path)
        self.slowest = (0.0, "")
        for name, args in SIGNATURES.items():
            if not re.search(r"\b%s\(" % name, header_text):
                raise SystemExit(f"{name} is not declared in {HEADER}")
            f = getattr(self.lib, name)
            f.argtypes = args
            f.restype = RESTYPES.get(name, C.c_int)
            setattr(self, name[len("navstudio_"):], self._timed(name, f))

    def _timed(self, name, f):
        def call(*args):
            t = time.perf_counter()
            r = f(*args)
            took = time.perf_counter() - t
            if took > self.slowest[0]:
                self.slowest = (took, name)
            return r
        return call

    def error(self):
        return self.last_error().decode()


def header_numbers(text, prefix):
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"\b%s(\w+) = (\d+)" % prefix, text)}


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed.append(what)
            print("FAIL", what)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="libnavstudio_capi.so (or .dylib)")
    ap.add_argument("--cli", required=True, help="the navstudio binary, for `navstudio path`")
    ap.add_argument("--package", required=True, help="a .navpkg (CI: the showcase)")
    ap.add_argument("--type", default="land", help="movement type to drive (default land)")
    ap.add_argument("--seed", type=int, default=48)
    args = ap.parse_args()
    text = open(HEADER, encoding="utf-8").read()
    S = header_numbers(text, "NAVSTUDIO_STATUS_")
    A = header_numbers(text, "NAVSTUDIO_AGENT_STATE_")
    name_of = {v: k for k, v in S.items()}
    for needed in ["OK", "NULL_POINTER", "INVALID_ARGUMENT", "PACKAGE", "UNKNOWN_MOVEMENT_TYPE",
                   "OFF_MAP", "WALL", "UNREACHABLE", "NO_SUCH_HANDLE", "NO_FLOW",
                   "BUFFER_TOO_SMALL", "WRONG_WORLD"]:
        if needed not in S:
            raise SystemExit(f"the header names no NAVSTUDIO_STATUS_{needed}")
    nav = Client(args.lib, text)
    checks = Checks()
    rng = random.Random(args.seed)
    print(f"seed {args.seed}")

    def expect(status, want, what, says=None):
        """A call's status is `want` (a header name) and, failing, its sentence says `says`."""
        got = name_of.get(status, str(status))
        msg = nav.error() if status != S["OK"] else ""
        ok = got == want and (says is None or says in msg)
        checks.check(ok, f"{what}: {got} ({msg!r}), expected {want}" + (f" saying {says!r}" if says else ""))
        return ok

    world = P()
    expect(nav.world_open(args.package.encode(), C.byref(world)), "OK", "world_open")
    info = WorldInfo()
    expect(nav.world_info(world, C.byref(info)), "OK", "world_info")
    layer = C.c_uint32()
    expect(nav.movement_type_index(world, args.type.encode(), C.byref(layer)), "OK", "movement_type_index")
    layer = layer.value
    W, H = info.width, info.height
    print(f"map {W}x{H} cells of {info.cell_size_m} m, {info.movement_type_count} movement types")

    def cost(w, x, y):
        c = C.c_uint8()
        st = nav.cell_cost(w, layer, Cell(x, y), C.byref(c))
        return c.value if st == S["OK"] else None

    def reachable(w, a, b):
        r = C.c_bool()
        nav.is_reachable(w, layer, Cell(*a), Cell(*b), C.byref(r))
        return r.value

    def request(w, sources, goal):
        arr = (Cell * len(sources))(*[Cell(*s) for s in sources])
        out = C.c_uint32(0xFFFFFFFF)
        st = nav.request_path(w, layer, arr, len(sources), Cell(*goal), C.byref(out))
        return st, out.value

    def trace(w, path, src):
        length, count = C.c_double(), C.c_size_t()
        st = nav.trace_path(w, path, Cell(*src), C.byref(length), None, 0, C.byref(count))
        return st, length.value

    def sample(w, path, p):
        d = Vec2()
        st = nav.sample_flow(w, path, Vec2(*p), C.byref(d))
        return st, (d.x, d.y)

    def rebuild(w):
        done = C.c_bool(False)
        calls = 0
        while not done.value:
            nav.rebuild(w, 2000, C.byref(done))
            calls += 1
        return calls

    def open_cell():
        while True:
            c = (rng.randrange(W), rng.randrange(H))
            if cost(world, *c) not in (None, 255):
                return c

    # 1. Random requests against is_reachable, the costs, and `navstudio path`.
    compared = 0
    answered = {"OK": 0, "WALL": 0, "UNREACHABLE": 0}
    for _ in range(120):
        a = (rng.randrange(W), rng.randrange(H))
        b = (rng.randrange(W), rng.randrange(H))
        st, path = request(world, [a], b)
        wall_a, wall_b = cost(world, *a) == 255, cost(world, *b) == 255
        if wall_a or wall_b:
            expect(st, "WALL", f"request {a}->{b} with a wall end", "is a wall")
            answered["WALL"] += 1
            continue
        want = "OK" if reachable(world, a, b) else "UNREACHABLE"
        if not expect(st, want, f"request {a}->{b} (is_reachable says {want})"):
            continue
        answered[want] += 1
        if want != "OK":
            continue
        tst, length = trace(world, path, a)
        if compared < 12 and tst == S["OK"]:
            out = subprocess.run([args.cli, "path", args.package, "--type", args.type, "--from",
                                  f"{a[0]},{a[1]}", "--to", f"{b[0]},{b[1]}"],
                                 capture_output=True, text=True, check=False).stdout
            m = re.search(r"traced +([0-9.]+) cells", out)
            checks.check(m is not None and f"{float(m.group(1)):.2f}" == f"{length:.2f}",
                         f"trace {a}->{b}: C API {length:.2f}, navstudio path {m.group(1) if m else out!r}")
            compared += 1
        expect(nav.path_release(world, path), "OK", "path_release")
        expect(nav.path_release(world, path), "NO_SUCH_HANDLE", "path_release twice")
    print(f"requests: {answered}, {compared} traces compared with navstudio path")
    checks.check(compared >= 10, f"only {compared} traces compared with navstudio path")

    # 2. Stamps compose: the case (walls, then an overlapping block of cost 200),
    # removed in both orders; every cell comes back.
    def open_block(size):
        while True:
            x, y = rng.randrange(W - size), rng.randrange(H - size)
            if all(cost(world, x + i, y + j) not in (None, 255) for i in range(size) for j in range(size)):
                return x, y

    def stamp(w, rect, value):
        types = (C.c_uint32 * 1)(layer)
        n = rect[2] * rect[3]
        costs = (C.c_uint8 * n)(*([value] * n))
        h = C.c_uint32()
        st = nav.apply_stamp(w, types, 1, Rect(*rect), costs, n, C.byref(h))
        return st, h.value

    for order in ["A first", "B first"]:
        x, y = open_block(9)
        before = [[cost(world, x + i, y + j) for i in range(9)] for j in range(9)]
        _, a = stamp(world, (x, y, 5, 5), 255)
        _, b = stamp(world, (x + 2, y + 2, 5, 5), 200)
        checks.check(cost(world, x + 3, y + 3) == 200, "the later stamp shows where stamps overlap")
        first, second = (a, b) if order == "A first" else (b, a)
        expect(nav.remove_stamp(world, first), "OK", "remove_stamp")
        expect(nav.remove_stamp(world, second), "OK", "remove_stamp")
        expect(nav.remove_stamp(world, second), "NO_SUCH_HANDLE", "remove_stamp twice")
        rebuild(world)
        after = [[cost(world, x + i, y + j) for i in range(9)] for j in range(9)]
        checks.check(after == before, f"stamps removed {order}: costs restored at ({x},{y})")
        st, p = request(world, [open_cell()], (x + 2, y + 2))
        checks.check(st in (S["OK"], S["UNREACHABLE"]), f"the overlap cell is a goal again: {name_of.get(st)}")
        if st == S["OK"]:
            nav.path_release(world, p)

    # 3. trace_path from cells that are not a source, where a sample_flow walk arrives.
    src = open_cell()
    goal = open_cell()
    while not reachable(world, src, goal):
        goal = open_cell()
    st, path = request(world, [src], goal)
    expect(st, "OK", "request for the trace check")
    walked = traced = 0
    for _ in range(60):
        c = (min(W - 1, max(0, src[0] + rng.randint(-40, 40))), min(H - 1, max(0, src[1] + rng.randint(-40, 40))))
        if cost(world, *c) == 255 or not reachable(world, c, goal):
            continue
        pos = (c[0] + 0.5, c[1] + 0.5)
        arrived = False
        for _ in range(8 * (W + H)):
            cell = (int(pos[0]), int(pos[1]))
            seen = C.c_bool()
            nav.line_of_sight(world, path, Cell(*cell), C.byref(seen))
            if cell == goal or seen.value:
                arrived = True
                break
            sst, d = sample(world, path, pos)
            if sst != S["OK"]:
                break
            pos = (pos[0] + 0.25 * d[0], pos[1] + 0.25 * d[1])
            if not (0 <= pos[0] < W and 0 <= pos[1] < H) or cost(world, int(pos[0]), int(pos[1])) == 255:
                break
        if arrived:
            walked += 1
            tst, _ = trace(world, path, c)
            traced += tst == S["OK"]
            checks.check(tst == S["OK"], f"trace from {c}, where a sample_flow walk arrives: "
                                         f"{name_of.get(tst)} {nav.error()!r}")
    print(f"traces from cells other than the source: {traced} of {walked} walks that arrived")

    # 5a. Bad input on the world.
    nan = float("nan")
    wall = next(((x, y) for _ in range(10000) for x, y in [(rng.randrange(W), rng.randrange(H))]
                 if cost(world, x, y) == 255), None)
    out_path = C.c_uint32()
    expect(request(world, [src], (W, 0))[0], "OFF_MAP", "request to a goal off the map")
    expect(nav.request_path(world, layer, None, 0, Cell(*goal), C.byref(out_path)), "INVALID_ARGUMENT",
           "request with no sources")
    expect(nav.request_path(world, 99, (Cell * 1)(Cell(*src)), 1, Cell(*goal), C.byref(out_path)),
           "UNKNOWN_MOVEMENT_TYPE", "request for movement type 99")
    expect(nav.request_path(world, layer, (Cell * 1)(Cell(*src)), 1, Cell(*goal), None), "NULL_POINTER",
           "request with a null out_path")
    if wall:
        expect(request(world, [wall], goal)[0], "WALL", "request from a wall", "is a wall")
        expect(request(world, [src], wall)[0], "WALL", "request to a wall", "is a wall")
        expect(trace(world, path, wall)[0], "WALL", "trace from a wall", "wall")
    expect(sample(world, path, (nan, 1.0))[0], "INVALID_ARGUMENT", "sample_flow at NaN")
    expect(sample(world, path, (-1.0, 1.0))[0], "OFF_MAP", "sample_flow off the map")
    expect(sample(world, 987654, (1.0, 1.0))[0], "NO_SUCH_HANDLE", "sample_flow on a path never issued")
    expect(trace(world, path, (W + 3, 0))[0], "OFF_MAP", "trace from off the map")
    expect(nav.set_cost(world, layer, Cell(*src), 0), "INVALID_ARGUMENT", "set_cost 0")
    expect(nav.set_cost(world, layer, Cell(W, 0), 5), "OFF_MAP", "set_cost off the map")
    types = (C.c_uint32 * 1)(layer)
    h = C.c_uint32()
    expect(nav.apply_stamp(world, types, 1, Rect(0, 0, 2, 2), (C.c_uint8 * 3)(1, 1, 1), 3, C.byref(h)),
           "INVALID_ARGUMENT", "a 2x2 stamp with 3 costs")
    expect(nav.apply_stamp(world, types, 1, Rect(0, 0, 0, 2), (C.c_uint8 * 1)(1), 0, C.byref(h)),
           "INVALID_ARGUMENT", "a stamp 0 wide")
    expect(nav.apply_stamp(world, types, 1, Rect(W, 0, 1, 1), (C.c_uint8 * 1)(1), 1, C.byref(h)),
           "OFF_MAP", "a stamp whose corner is off the map")
    expect(nav.movement_type_index(world, b"no such type", C.byref(C.c_uint32())), "UNKNOWN_MOVEMENT_TYPE",
           "movement_type_index of an unknown name")
    expect(nav.cell_cost(world, layer, Cell(0, H), C.byref(C.c_uint8())), "OFF_MAP", "cell_cost off the map")
    # A path the rebuild drops: a wall on its goal.
    st, doomed = request(world, [src], goal)
    stamp(world, (goal[0], goal[1], 1, 1), 255)
    rebuild(world)
    expect(trace(world, doomed, src)[0], "NO_SUCH_HANDLE", "trace on a path the rebuild dropped")
    expect(nav.path_release(world, doomed), "NO_SUCH_HANDLE", "release of a path the rebuild dropped")
    rebuild_zero = C.c_bool(False)
    calls = 0
    nav.set_cost(world, layer, Cell(*src), 7)
    while not rebuild_zero.value and calls < 100000:
        nav.rebuild(world, 0, C.byref(rebuild_zero))
        calls += 1
    checks.check(rebuild_zero.value, "rebuild with a budget of 0 finishes")

    # Packages that cannot be opened.
    w2 = P()
    expect(nav.world_open(b"", C.byref(w2)), "INVALID_ARGUMENT", "world_open of an empty path", "path is empty")
    expect(nav.world_open(b"/no/such/file.navpkg", C.byref(w2)), "PACKAGE", "world_open of a missing file",
           "/no/such/file.navpkg")
    expect(nav.world_open(None, C.byref(w2)), "NULL_POINTER", "world_open of NULL")
    garbage = bytes(rng.randrange(256) for _ in range(4096))
    expect(nav.world_open_bytes(garbage, len(garbage), C.byref(w2)), "PACKAGE", "world_open_bytes of garbage")
    data = open(args.package, "rb").read()
    expect(nav.world_open_bytes(data[: len(data) // 2], len(data) // 2, C.byref(w2)), "PACKAGE",
           "world_open_bytes of half a package")
    # A damaged chunk late in the file: from memory and from a file alike, the open or the
    # first call that reads the chunk fails with PACKAGE (the header says which).
    damaged = bytearray(data)
    at = len(data) * 7 // 8
    damaged[at] ^= 0xFF

    def region_reads(st, w):
        """The statuses of reading one cell of every sector, or the open's status."""
        if st != S["OK"]:
            return [name_of.get(st)]
        seen = []
        for ly in range(info.movement_type_count):
            for y in range(0, H, info.sector_size):
                for x in range(0, W, info.sector_size):
                    c = C.c_uint8()
                    seen.append(name_of.get(nav.cell_cost(w, ly, Cell(x, y), C.byref(c))))
        nav.world_free(w)
        return seen

    from_memory = region_reads(nav.world_open_bytes(bytes(damaged), len(damaged), C.byref(w2)), w2)
    with tempfile.NamedTemporaryFile(suffix=".navpkg", delete=False) as f:
        f.write(damaged)
    try:
        from_file = region_reads(nav.world_open(f.name.encode(), C.byref(w2)), w2)
    finally:
        os.unlink(f.name)
    checks.check("PACKAGE" in from_file, f"a damaged package fails on open or where read ({set(from_file)})")
    checks.check(from_memory == from_file, "a damaged package fails alike from memory and from a file")

    # 4 and 5b. The crowd.
    crowd = P()
    expect(nav.crowd_create(world, 7, C.byref(crowd)), "OK", "crowd_create")
    inf = Archetype()
    expect(nav.archetype_default(b"infantry", C.byref(inf)), "OK", "archetype_default")
    expect(nav.archetype_default(b"dragon", C.byref(Archetype())), "INVALID_ARGUMENT", "archetype_default dragon")
    m = info.cell_size_m
    aid = C.c_uint32()

    def add(arch, x, y):
        return nav.crowd_add_agent(crowd, world, C.byref(arch), Vec2(x, y), 0, C.byref(aid))

    for field, value in [("radius_m", 1e6), ("radius_m", 9.0 * m), ("mass", 0.0), ("max_force", 1e12),
                         ("max_speed", 1e4), ("neighbour_radius_m", 1e6), ("max_speed", nan)]:
        bad = Archetype.from_buffer_copy(inf)
        setattr(bad, field, value)
        expect(add(bad, (src[0] + 0.5) * m, (src[1] + 0.5) * m), "INVALID_ARGUMENT",
               f"an archetype with {field} = {value}", field)
    other = Archetype.from_buffer_copy(inf)
    other.movement_type = b"submarine"
    expect(add(other, (src[0] + 0.5) * m, (src[1] + 0.5) * m), "UNKNOWN_MOVEMENT_TYPE", "an unknown movement type")
    expect(add(inf, nan, 1.0), "INVALID_ARGUMENT", "an agent at NaN")
    expect(add(inf, -5.0, 1.0), "OFF_MAP", "an agent off the map")
    if wall:
        expect(add(inf, (wall[0] + 0.5) * m, (wall[1] + 0.5) * m), "WALL", "an agent in a wall", "wall")
    ids = []
    for k in range(40):
        if add(inf, (src[0] + 0.5 + (k % 8) * 0.8 - 3) * m, (src[1] + 0.5 + (k // 8) * 0.8 - 2) * m) == S["OK"]:
            ids.append(aid.value)
    checks.check(len(ids) >= 10, f"only {len(ids)} agents placed")
    arr = (C.c_uint32 * len(ids))(*ids)
    rep = OrderReport()
    expect(nav.crowd_order(crowd, world, arr, len(ids), Vec2(nan, 0), C.byref(rep)), "INVALID_ARGUMENT",
           "an order to NaN")
    expect(nav.crowd_order(crowd, world, arr, len(ids), Vec2(W * m + 9, 1), C.byref(rep)), "OFF_MAP",
           "an order off the map")
    if wall:
        expect(nav.crowd_order(crowd, world, arr, len(ids), Vec2((wall[0] + 0.5) * m, (wall[1] + 0.5) * m),
                               C.byref(rep)), "WALL", "an order into a wall", "wall")
    island = next(((x, y) for _ in range(20000) for x, y in [(rng.randrange(W), rng.randrange(H))]
                   if cost(world, x, y) not in (None, 255) and not reachable(world, src, (x, y))), None)
    if island:
        expect(nav.crowd_order(crowd, world, arr, len(ids), Vec2((island[0] + 0.5) * m, (island[1] + 0.5) * m),
                               C.byref(rep)), "UNREACHABLE", "an order no agent can reach", "can reach")
    else:
        print("no cell off the source's island found: the unreachable order is not checked")
    bogus = (C.c_uint32 * 1)(999999)
    expect(nav.crowd_order(crowd, world, bogus, 1, Vec2(1, 1), C.byref(rep)), "INVALID_ARGUMENT",
           "an order for an agent that does not exist")
    near = next(c for c in iter(open_cell, None) if reachable(world, src, c)
                and math.dist(c, src) * m < 40 and math.dist(c, src) * m > 10)
    expect(nav.crowd_order(crowd, world, arr, len(ids), Vec2((near[0] + 0.5) * m, (near[1] + 0.5) * m),
                           C.byref(rep)), "OK", "an order 10-40 m away")
    expect(nav.crowd_step(crowd, world, 61), "INVALID_ARGUMENT", "crowd_step of 61 steps")
    expect(nav.crowd_advance(crowd, world, nan, None), "INVALID_ARGUMENT", "crowd_advance NaN")
    expect(nav.crowd_advance(crowd, world, -1.0, None), "INVALID_ARGUMENT", "crowd_advance -1 s")
    other_world = P()
    nav.world_open(args.package.encode(), C.byref(other_world))
    expect(nav.crowd_step(crowd, other_world, 1), "WRONG_WORLD", "a crowd stepped on another world")
    nav.world_free(other_world)
    steps = 0
    for _ in range(600):
        taken = C.c_uint32()
        nav.crowd_advance(crowd, world, 1.0 / 60.0, C.byref(taken))
        steps += taken.value
    checks.check(steps == 600, f"600 frames of 1/60 s took {steps} steps")
    n = C.c_size_t()
    expect(nav.crowd_states(crowd, None, 0, C.byref(n)), "BUFFER_TOO_SMALL", "crowd_states into no room")
    states = (C.c_uint8 * n.value)()
    for _ in range(50):
        nav.crowd_states(crowd, states, n.value, C.byref(n))
        if all(s == A["ARRIVED"] for s in states):
            break
        nav.crowd_step(crowd, world, 60)
    arrived = sum(s == A["ARRIVED"] for s in states)
    print(f"crowd: {arrived} of {len(ids)} arrived {math.dist(near, src) * m:.0f} m away")
    checks.check(arrived == len(ids), f"only {arrived} of {len(ids)} agents arrived")
    # The crowd is read after its world is freed.
    nav.world_free(world)
    positions = (Vec2 * n.value)()
    expect(nav.crowd_positions(crowd, positions, n.value, C.byref(n)), "OK", "crowd_positions after world_free")
    expect(nav.crowd_agent_count(crowd, C.byref(n)), "OK", "crowd_agent_count after world_free")
    nav.crowd_free(crowd)

    print(f"slowest call: {nav.slowest[1]}, {nav.slowest[0] * 1000:.1f} ms")
    print(f"capi_client: {checks.passed} passed, {len(checks.failed)} failed")
    return 0 if not checks.failed else 1


if __name__ == "__main__":
    sys.exit(main())
