#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the sample maps, the bad-input corpus and small packages
# baked by the CLI. Run from anywhere; NAVSTUDIO=path/to/navstudio skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
NAV=${NAVSTUDIO:-}
if [ -z "$NAV" ]; then
  cargo build --release --no-default-features --locked
  NAV=$PWD/target/release/navstudio
fi
C=fuzz/corpus
mkdir -p $C/package_reader $C/map_document $C/moving_ai $C/heightmap_raw $C/heightmap_png
gen=$(mktemp -d)
"$NAV" generate --kind small --size 20 -o "$gen/tiny.ron" >/dev/null
"$NAV" generate --kind small --size 40 --seed 3 -o "$gen/mid.ron" >/dev/null
"$NAV" bake "$gen/tiny.ron" -o "$gen/tiny.navpkg" >/dev/null
"$NAV" bake "$gen/mid.ron" -o "$gen/mid.navpkg" >/dev/null
"$NAV" bake maps/small.ron -o "$gen/small.navpkg" >/dev/null

# A map with links, so the links chunk is in the corpus.
python3 - "$gen/mid.ron" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read().rstrip()
assert text.endswith(")")
links = ('    links: [(id: 1, a: (x: 2, y: 2, w: 1, h: 1), b: (x: 30, y: 30, w: 2, h: 2)),'
         ' (id: 2, a: (x: 5, y: 30, w: 1, h: 1), b: (x: 30, y: 5, w: 1, h: 1), two_way: false,'
         ' kind: Drop, cost: Direct(3))],\n')
open(path, "w").write(text[:-1] + links + ")\n")
PY
"$NAV" bake "$gen/mid.ron" -o "$gen/links.navpkg" >/dev/null
cp "$gen"/*.navpkg tests/bad_inputs/*.navpkg $C/package_reader/
cp maps/*.ron "$gen"/*.ron tests/bad_inputs/*.ron $C/map_document/
cp tests/bad_inputs/*.map $C/moving_ai/
cp tests/bad_inputs/*.r16 $C/heightmap_raw/
cp maps/small.png maps/small.paint.all.png "$gen"/*.png $C/heightmap_png/
for f in tests/bad_inputs/*.png; do cp "$f" "$C/heightmap_png/bad_$(basename "$f")"; done
rm -r "$gen"

python3 - "$C" <<'PY'
import random, sys
C = sys.argv[1]
random.seed(1)
# Moving AI: small valid grids using every terrain letter, and a .scen file.
for i, (w, h) in enumerate([(4, 3), (8, 8), (16, 5)]):
    rows = ["".join(random.choice(".G@OTSW") for _ in range(w)) for _ in range(h)]
    with open(f"{C}/moving_ai/valid_{i}.map", "w") as f:
        f.write(f"type octile\nheight {h}\nwidth {w}\nmap\n" + "\n".join(rows) + "\n")
with open(f"{C}/moving_ai/rows.scen", "w") as f:
    f.write("version 1\n0\tx.map\t8\t8\t1\t1\t6\t6\t7.07106781\n"
            "1\tx.map\t8\t8\t0\t0\t2\t3\t3.41421356\n")
# RAW: the target reads the first byte as the width, the rest as little-endian u16 samples.
for w, h in [(2, 2), (4, 4), (3, 5), (8, 8)]:
    body = bytes(random.randrange(256) for _ in range(2 * w * h))
    with open(f"{C}/heightmap_raw/w{w}x{h}", "wb") as f:
        f.write(bytes([w]) + body)
PY
echo "seeded: $(ls $C/* | wc -l) files in $C"
