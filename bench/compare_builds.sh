#!/usr/bin/env bash
# Compares two builds of tcstudio-cli on every bundled example: the kernel time that
# `run --repeat` reports (default preset, one thread, the header's sizes), measured
# alternately old/new for ROUNDS rounds in one run, the fastest median of each kept.
# Prints new/old per example and flags any example more than 10 % slower.
#   bench/compare_builds.sh OLD_CLI NEW_CLI [ROUNDS=3] [REPEAT=50] [PRESET=default]
set -euo pipefail
old=$1 new=$2 rounds=${3:-3} repeat=${4:-50} preset=${5:-default}
examples=$(dirname "$0")/../resources/examples
median_ms() {  # CLI FILE -> median ms, or "error"
  "$1" run "$2" --random --preset "$preset" --threads 1 --repeat "$repeat" --json 2>/dev/null |
    sed -n 's/.*"median_ms": *\([0-9.eE+-]*\).*/\1/p' | head -1 || true
}
printf '%-26s %12s %12s %8s\n' example "old ms" "new ms" new/old
slower=0
for f in "$examples"/*.tc; do
  best_old="" best_new=""
  for ((r = 0; r < rounds; r++)); do
    for side in old new; do
      cli=$old; [ $side = new ] && cli=$new
      m=$(median_ms "$cli" "$f")
      [ -z "$m" ] && continue
      if [ $side = old ]; then best_old=$(awk -v a="$best_old" -v b="$m" 'BEGIN{print (a=="" || b<a) ? b : a}')
      else best_new=$(awk -v a="$best_new" -v b="$m" 'BEGIN{print (a=="" || b<a) ? b : a}'); fi
    done
  done
  name=$(basename "$f" .tc)
  if [ -z "$best_old" ] || [ -z "$best_new" ]; then
    printf '%-26s %12s %12s %8s\n' "$name" "${best_old:-error}" "${best_new:-error}" "-"
    continue
  fi
  ratio=$(awk -v a="$best_old" -v b="$best_new" 'BEGIN{printf "%.2f", b/a}')
  flag=$(awk -v r="$ratio" 'BEGIN{print (r > 1.10) ? "  slower" : ""}')
  [ -n "$flag" ] && slower=$((slower + 1))
  printf '%-26s %12.4f %12.4f %8s%s\n' "$name" "$best_old" "$best_new" "$ratio" "$flag"
done
echo "examples more than 10 % slower: $slower"
