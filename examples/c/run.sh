#!/usr/bin/env bash
# The C API end to end, as CI runs it: builds libnavstudio_capi and the CLI, bakes the
# showcase map, compiles examples/c/navigate.c with the system C compiler under
# AddressSanitizer (leak checks on), then
#   1. runs the demo (plan, follow the flow, stamp, rebuild, re-plan, crowd) and checks that
#      its traced length is the line `navstudio path` prints for the same request;
#   2. answers 100 random requests and diffs them with the Rust API's answers
#      (crates/navstudio-capi/examples/oracle.rs), on one world and from two threads
#      sharing one data handle, each with its own query handle;
#   3. compiles the C# (P/Invoke) block of docs/engine-integration.md with Mono's mcs and
#      runs it on the library (installs mono-mcs when root and missing; skipped, saying so,
#      when it cannot be had);
#   4. runs tools/capi_client.py, an outside client in Python ctypes written from the header.
# Any ASan report fails the run. Needs cargo and cc (CI installs gcc). NAVSTUDIO_CLI names
# a built `navstudio` to use instead of building one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# After CI's `cargo test` (NAVSTUDIO_CLI set), build with the whole workspace's features so
# its artifacts are reused: `-p navstudio-capi` alone resolves features anew and recompiles
# the shared dependencies.
if [ -n "${NAVSTUDIO_CLI:-}" ]; then
    cargo build --locked -q --workspace --lib --example oracle
else
    cargo build --locked -q -p navstudio-capi --lib --example oracle
fi
# CI passes the CLI its `cargo test` just built (NAVSTUDIO_CLI): building it here again, for
# this one package's features, recompiles the editor's dependencies for minutes.
if [ -n "${NAVSTUDIO_CLI:-}" ]; then
    cli="$NAVSTUDIO_CLI"
else
    cargo build --locked -q --no-default-features --bin navstudio
    cli="$target/debug/navstudio"
fi
lib="$target/debug"
"$cli" bake maps/showcase.ron -o "$work/showcase.navpkg" >/dev/null

cc -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I crates/navstudio-capi/include examples/c/navigate.c \
    -L "$lib" -lnavstudio_capi -Wl,-rpath,"$lib" -lm -pthread -o "$work/navigate"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

passed=0
failed=0
check() { # name, command...: counts the result instead of stopping the script on a failure
    local name="$1"
    shift
    if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
# "323.97 324" from a line "traced 323.97 cells of path ... (324 steps before line of sight)",
# however the line is indented or worded around those two figures.
traced_figures() { sed -nE 's/^ *traced +([0-9.]+) cells.*\(([0-9]+) steps.*/\1 \2/p'; }

# 1. The demo, and its traced length against `navstudio path`.
request=(land 40 400 330 430)
"$work/navigate" "$work/showcase.navpkg" "${request[@]}" | tee "$work/demo.txt"
c_traced="$(traced_figures <"$work/demo.txt")"
cli_traced="$("$cli" path "$work/showcase.navpkg" --type land \
    --from "${request[1]},${request[2]}" --to "${request[3]},${request[4]}" | traced_figures)"
echo "traced (cells, steps): C $c_traced, navstudio path $cli_traced"
check "C demo traces the length and steps navstudio path prints" \
    test -n "$cli_traced" -a "$c_traced" = "$cli_traced"
check "following sample_flow reaches the goal" grep -q 'at the goal: yes' "$work/demo.txt"

# 2. 100 random requests: C API against the Rust API.
"$target/debug/examples/oracle" "$work/showcase.navpkg" 100 2026 "$work/requests.txt" >"$work/rust.txt"
"$work/navigate" "$work/showcase.navpkg" --requests "$work/requests.txt" >"$work/c.txt"
traced=$(grep -c ' traced ' "$work/rust.txt" || true)
echo "requests: $(wc -l <"$work/requests.txt"), traced by Rust: $traced"
same_answers() { diff -u "$work/rust.txt" "$work/c.txt" && [ "$(wc -l <"$work/c.txt")" -eq 100 ] && [ "$traced" -ge 50 ]; }
check "C API answers 100 random requests as the Rust API does" same_answers
"$work/navigate" "$work/showcase.navpkg" --requests "$work/requests.txt" --threads 2 >"$work/c2.txt"
check "C API answers them from two threads (shared data, a query each) as the Rust API does" \
    diff -u "$work/rust.txt" "$work/c2.txt"

# The header also compiles as C++ (Godot, Unreal), when a C++ compiler is there.
if command -v c++ >/dev/null 2>&1; then
    printf '#include "navstudio.h"\nint main() { return navstudio_version() == nullptr; }\n' >"$work/header.cpp"
    check "navstudio.h compiles as C++17" \
        c++ -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -I crates/navstudio-capi/include "$work/header.cpp"
fi

# 3. The C# snippet of the docs, compiled and run against the library.
if ! command -v mcs >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    (apt-get update -qq && apt-get install -y -qq --no-install-recommends mono-mcs) >"$work/apt.log" 2>&1 \
        || echo "could not install mono-mcs (see apt output below)"; tail -3 "$work/apt.log" || true
fi
if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then
    awk '/^```csharp/{on=1;next} /^```/{on=0} on' docs/engine-integration.md >"$work/Navstudio.cs"
    mcs -nologo -out:"$work/navstudio-cs.exe" "$work/Navstudio.cs"
    cs_traced="$(LD_LIBRARY_PATH="$lib" mono "$work/navstudio-cs.exe" "$work/showcase.navpkg" | traced_figures)"
    echo "traced (cells, steps): C# $cs_traced"
    check "the docs' C# P/Invoke snippet compiles and traces what navstudio path prints" \
        test -n "$cs_traced" -a "$cs_traced" = "$cli_traced"
else
    echo "SKIPPED the C# snippet: no mcs/mono on this machine"
fi

# 4. An outside client written from the header alone (Python ctypes): requests against
# `navstudio path`, stamps, traces, a crowd, and every bad input it knows, each with the
# status the header names.
check "the Python ctypes client (tools/capi_client.py) finds what the header promises" \
    "${NAVSTUDIO_PYTHON:-python3}" tools/capi_client.py --lib "$lib/libnavstudio_capi.so" \
    --cli "$cli" --package "$work/showcase.navpkg"

echo "c-api: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
