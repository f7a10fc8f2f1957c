#!/bin/bash
# Compares crowd bench executables (benches/crowd.rs builds) step for step, alternating
# them so a loaded machine slows each alike: ROUNDS runs of STEPS fixed steps of CASE each,
# one thread (RAYON_NUM_THREADS, default 1: CPU time then measures the step's work, not the
# scheduler), and prints per executable the median over the rounds of the CPU and wall
# milliseconds per step.
#   tools/crowd_step_cmp.sh ROUNDS STEPS CASE EXE[:VAR=VALUE] ...
# e.g. tools/crowd_step_cmp.sh 9 300 flow_separation_10k /tmp/old/crowd-HASH \
#        target/release/deps/crowd-HASH:CROWD_CASE=separation_contacts_10k
# (VAR=VALUE sets an environment variable for that executable only, e.g. another case.)
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n 2,10p "$0"
  exit 2
fi
rounds=$1; steps=$2; case=$3; shift 3
declare -A res
for _ in $(seq "$rounds"); do
  for spec in "$@"; do
    exe=${spec%%:*}; var=""; [[ $spec == *:* ]] && var=${spec#*:}
    line=$(env RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}" CROWD_FIXED_STEPS="$steps" \
      CROWD_CASE="$case" $var "$exe" --bench | grep median | head -1)
    cpu=$(sed -E 's/.*steps, ([0-9.]+) ms CPU.*/\1/' <<<"$line")
    wall=$(sed -E 's/.*median ([0-9.]+) ms.*/\1/' <<<"$line")
    res[$spec]="${res[$spec]:-} $cpu/$wall"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for spec in "$@"; do
  cpu=$(for x in ${res[$spec]}; do echo "${x%/*}"; done | median)
  wall=$(for x in ${res[$spec]}; do echo "${x#*/}"; done | median)
  echo "$spec: median CPU $cpu ms, wall $wall ms per step (rounds:${res[$spec]})"
done
