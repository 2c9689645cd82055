#!/usr/bin/env bash
# Drives tcstudio-cli as a user would: exit codes (0 ok, 1 user error, 2 usage error),
# messages that name the problem, JSON shapes and .npy files written and read back.
# usage: cli_test.sh TCSTUDIO_CLI EXAMPLES_DIR WORK_DIR
set -u
cli=$1 examples=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
passed=0 failed=0

# expect CODE PATTERN -- ARGS...: the exit code is CODE and stdout+stderr match PATTERN.
expect() {
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$cli" "$@" 2>&1); rc=$?
  if [ "$rc" -eq "$code" ] && grep -qE -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: tcstudio-cli $* -> exit $rc (want $code), output:"; echo "$out" | head -20
    echo "  wanted pattern: $pattern"
  fi
}

cat >"$work/bad.tc" <<'TC'
def f(float(N) A) -> (O) {
    O(i) = A(i) * Bx(i)
}
TC
cat >"$work/accum.tc" <<'TC'
# sizes: M=2 K=3 N=2
def gemm_acc(float(M,K) A, float(K,N) B) -> (C) {
    C(m, n) += A(m, k) * B(k, n)
}
TC
printf 'not a numpy file' >"$work/garbage.npy"

expect 0 '^tcstudio-cli [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect 0 'Commands:' -- --help
expect 2 'unknown command' -- frobnicate
expect 2 'usage' --
for c in check shapes run; do expect 0 "usage: tcstudio-cli $c" -- $c --help; done

# check
expect 0 '^$' -- check "$examples/matmul.tc"
expect 1 'bad.tc:2:19: error: unknown tensor or function .Bx.' -- check "$work/bad.tc"
expect 1 '\^~' -- check "$work/bad.tc"
expect 1 '"line":2,"column":19,"end_line":2,"end_column":21' -- check "$work/bad.tc" --json
expect 1 "cannot open '.*missing.tc'" -- check "$work/missing.tc"
expect 2 "unknown option '--bogus'" -- check "$examples/matmul.tc" --bogus
expect 2 'expected one FILE.tc' -- check

# shapes
expect 0 'output +C +float32\[64, 96\]' -- shapes "$examples/matmul.tc"
expect 0 '"outputs":\[\{"name":"C","type":"float32","shape":\[3,5\],"min":\[0,0\]\}\]' -- shapes "$examples/matmul.tc" --size M=3 --size N=5 --size K=2 --json
expect 0 '"indices":\{"S0":\{"m":\[0,2\],"n":\[0,4\],"k":\[0,1\]\}\}' -- shapes "$examples/matmul.tc" --size M=3 --size N=5 --size K=2 --json
expect 1 "'Q' is not a size parameter of 'matmul'" -- shapes "$examples/matmul.tc" --size Q=3
expect 1 'size M=0 is out of range' -- shapes "$examples/matmul.tc" --size M=0
expect 2 '--size takes NAME=INT' -- shapes "$examples/matmul.tc" --size M=x
expect 1 "index 'h' .* has an empty range" -- shapes "$examples/conv2d.tc" --size H=2 --size KH=3
cat >"$work/two.tc" <<'TC'
def a(float(N) X) -> (O) { O(i) = X(i) }
def b(float(N) X) -> (O) { O(i) = X(i) * 2 }
TC
expect 1 'defines 2 kernels \(a, b\); choose one with --entry NAME' -- shapes "$work/two.tc" --size N=3
expect 0 'def b' -- shapes "$work/two.tc" --size N=3 --entry b
expect 1 "no def named 'c'" -- shapes "$work/two.tc" --size N=3 --entry c

# run, .npy in and out
expect 0 'C +float32\[64, 96\]' -- run "$examples/matmul.tc" --random=7
expect 0 'wrote C to' -- run "$examples/matmul.tc" --size M=4 --size K=3 --size N=2 --random --output "C=$work/c.npy"
expect 0 '"shape":\[4,96\]' -- run "$examples/matmul.tc" --input "A=$work/c.npy" --random --json
expect 1 "size K is 3 from --size K=3, but the shape \[4, 2\] of 'A' gives K=2" -- run "$examples/matmul.tc" --input "A=$work/c.npy" --size K=3 --random
expect 1 "input 'A' is missing; pass --input A=FILE.npy or --random" -- run "$examples/matmul.tc"
expect 1 'garbage.npy' -- run "$examples/matmul.tc" --input "A=$work/garbage.npy" --random
expect 1 "has no output named 'Z'" -- run "$examples/matmul.tc" --random --output "Z=$work/z.npy"
expect 1 "no tensor named 'Q'" -- run "$examples/matmul.tc" --input "Q=$work/c.npy"
expect 2 '--random takes an unsigned integer seed' -- run "$examples/matmul.tc" --random=abc
expect 1 "size K is 2 from the shape \[4, 2\] of 'A', but the shape \[4, 2\] of 'B' gives K=4" -- run "$examples/matmul.tc" --input "A=$work/c.npy" --input "B=$work/c.npy"
expect 1 'unknown tensor or function' -- run "$work/bad.tc" --random

# accumulate into a supplied output: C + A*B, with C read from a file
expect 0 'wrote C' -- run "$work/accum.tc" --random=3 --output "C=$work/c0.npy"
expect 0 'accumulates into|C +float32\[2, 2\]' -- run "$work/accum.tc" --random=3 --input "C=$work/c0.npy"

# compile: every intermediate form, and every way to get the options wrong
expect 0 '"S2": \{"tile"' -- compile "$examples/kru3.tc" --size M=256 --size N0=32 --size N1=32 --size N2=32 --size D0=16 --size D1=16 --size D2=16 --emit options
expect 0 'S0_init\[m, n\] -> C\[m, n\]' -- compile "$examples/matmul.tc" --emit model
# Options saved in the file (the IDE writes them): used when none are given, named when broken.
{ echo '# options: naive'; cat "$examples/matmul.tc"; } >"$work/saved_naive.tc"
sed 's|^def matmul|# options: {"tile": [4, 8], "unroll": 2}\ndef matmul|' "$examples/matmul.tc" >"$work/saved_json.tc"
printf '# sizes: N=8\n# options: {"tile": [0]}\ndef f(float(N) A) -> (O) { O(i) = A(i) }\n' >"$work/saved_bad.tc"
expect 0 '"tile": \[\]' -- compile "$work/saved_naive.tc" --emit options
expect 0 'note: options from .*saved_naive.tc:1' -- compile "$work/saved_naive.tc" --emit options
expect 0 '"tile": \[4, 8\]' -- compile "$work/saved_json.tc" --emit options
expect 0 '"tile": \[[0-9]+, [0-9]+, [0-9]+\]' -- compile "$work/saved_json.tc" --emit options --preset default
expect 1 'saved_bad.tc:2: saved options: .*tile\[0\]' -- compile "$work/saved_bad.tc" --emit options
expect 0 'band register point' -- compile "$examples/matmul.tc" --emit schedule
expect 0 'accumulate-in-registers' -- compile "$examples/matmul.tc" --emit ast
expect 0 '// L[0-9]+ parallel' -- compile "$examples/matmul.tc" --size M=256 --size K=256 --size N=256 --emit c
expect 0 'define .*i32 @tcs_kernel' -- compile "$examples/matmul.tc" --emit llvm
expect 0 'vfmadd' -- compile "$examples/matmul.tc" --emit asm
expect 0 'band scheduled' -- compile "$examples/matmul.tc" --dump-after schedule
expect 2 "unknown pass 'bogus'" -- compile "$examples/matmul.tc" --dump-after bogus
expect 2 '--emit takes options, model' -- compile "$examples/matmul.tc" --emit pdf
expect 1 "unknown preset 'fastest' \(known presets: naive, default" -- compile "$examples/matmul.tc" --preset fastest
printf '{"tile": [32, 0]}' >"$work/tile0.json"
expect 1 'tile\[1\] must be a positive integer up to [0-9]+, got 0' -- compile "$examples/matmul.tc" --options "$work/tile0.json"
printf '{"tile": [-1]}' >"$work/tileneg.json"
expect 1 'tile\[0\] must be a positive integer up to [0-9]+, got -1' -- compile "$examples/matmul.tc" --options "$work/tileneg.json"
printf '{"tile": [32, 32,]}' >"$work/broken.json"
expect 1 'broken.json: options: line 1, column 18: unexpected character .\].' -- compile "$examples/matmul.tc" --options "$work/broken.json"
printf '{"tiles": [32]}' >"$work/typo.json"
expect 1 "unknown option 'tiles' \(did you mean 'tile'\?\)" -- compile "$examples/matmul.tc" --options "$work/typo.json"
printf '{"cpu": {"vectorWidth": 6}}' >"$work/width.json"
expect 1 'cpu.vectorWidth must be a power of two' -- compile "$examples/matmul.tc" --options "$work/width.json"
printf '{"cpu": {"pack": [{"tensor": "Q"}]}, "tile": [8]}' >"$work/pack.json"
expect 1 "cpu.pack\[0\].tensor: 'matmul' has no tensor named 'Q'" -- compile "$examples/matmul.tc" --options "$work/pack.json"
expect 1 'cannot read options file' -- compile "$examples/matmul.tc" --options "$work/none.json"
expect 1 'need .* bytes .* more than this machine' -- compile "$examples/matmul.tc" --size M=1000000 --size N=1000000 --size K=1000000

# run on the CPU, checked against the interpreter
expect 0 'check: ok, max error' -- run "$examples/matmul.tc" --random --check
expect 0 '"check":"pass"' -- run "$examples/conv2d.tc" --random --check --json --preset naive
expect 0 'median .* ms over 3 runs, .* GFLOP/s' -- run "$examples/matmul.tc" --random --repeat 3 --threads 2
expect 0 'interpreted' -- run "$examples/matmul.tc" --random --target interp
expect 2 '--target takes cpu or interp' -- run "$examples/matmul.tc" --random --target gpu
expect 2 '--threads takes a count' -- run "$examples/matmul.tc" --random --threads 0
expect 1 'need .* bytes .* more than this machine' -- run "$examples/matmul.tc" --size M=1000000 --size N=1000000 --size K=1000000 --random

# the tuning cache: lookups say what they used and never create or damage a file
export XDG_DATA_HOME="$work/xdg"
expect 0 'no tuning cache at .*/xdg/tcstudio/cache.sqlite yet' -- cache list
expect 0 'no tuned entry for .matmul. \(M=64 K=128 N=96\) on this machine .*; using the default preset' -- \
  run "$examples/matmul.tc" --random --best
expect 1 'no tuned entry' -- cache best "$examples/matmul.tc"
expect 1 'give one of --options, --preset and --best' -- compile "$examples/matmul.tc" --best --preset naive
[ ! -e "$work/xdg" ] || { echo "FAIL: a lookup created the cache"; failed=$((failed + 1)); }
printf 'not a database at all' >"$work/notes.sqlite"
expect 1 'notes.sqlite is not a TC Studio tuning cache .*left as it is' -- cache list --db "$work/notes.sqlite"
expect 1 'notes.sqlite is not a TC Studio tuning cache' -- run "$examples/matmul.tc" --random --best --db "$work/notes.sqlite"
grep -q '^not a database at all$' "$work/notes.sqlite" || { echo "FAIL: a foreign file was changed"; failed=$((failed + 1)); }
expect 2 "unknown subcommand 'frob'" -- cache frob
expect 1 'no tuning cache at' -- cache show abc --db "$work/none.sqlite"

# tune, then use and share what it found
db="$work/tuned.sqlite"
expect 0 'session 1 of matmul .*: 6 trials .*stopped: trial budget' -- \
  tune "$examples/matmul.tc" --size M=24 --size K=16 --size N=20 --trials 6 --batch 3 --threads 1 --db "$db"
expect 0 'session 2 .*6 measured before' -- \
  tune "$examples/matmul.tc" --size M=24 --size K=16 --size N=20 --trials 3 --batch 3 --threads 1 --db "$db"
expect 0 '"trials":2,.*"best_ms":' -- \
  tune "$examples/matmul.tc" --size M=24 --size K=16 --size N=20 --trials 2 --batch 2 --threads 1 --db "$db" --json
expect 0 '^[0-9a-f]{16}  matmul +M=24 K=16 N=20 +11 ' -- cache list --db "$db"
key=$("$cli" cache list --db "$db" --json | grep -oE '"key":"[0-9a-f]{16}"' | head -1 | cut -d'"' -f4)
expect 0 'fastest candidates' -- cache show "${key:0:5}" --db "$db"
expect 0 'using tuned options for .matmul. \(M=24 K=16 N=20\)' -- \
  run "$examples/matmul.tc" --size M=24 --size K=16 --size N=20 --random --check --best --db "$db"
expect 0 '"tile"' -- cache best "$examples/matmul.tc" --size M=24 --size K=16 --size N=20 --db "$db"
expect 1 'no tuned entry for .matmul. \(M=25' -- cache best "$examples/matmul.tc" --size M=25 --size K=16 --size N=20 --db "$db"
expect 0 'exported 11 candidates' -- cache export --db "$db" --output "$work/shared.jsonl"
expect 0 'shared.jsonl: 11 lines, 11 new candidates, 11 new measurements, 0 already present' -- \
  cache import "$work/shared.jsonl" --db "$work/merged.sqlite"
expect 0 'shared.jsonl: 11 lines, 0 new candidates, 0 new measurements, 11 already present' -- \
  cache import "$work/shared.jsonl" --db "$work/merged.sqlite"
expect 0 'vacuumed' -- cache vacuum --db "$work/merged.sqlite"
cat >"$work/two.tc" <<'TC'
# sizes: N=64 M=8
def scale(float(N) A) -> (B) { B(i) = A(i) * 2 }
def rowsum(float(M,N) A) -> (S) { S(m) +=! A(m, n) }
TC
expect 0 'session 2 of rowsum \(M=8 N=64\)' -- \
  tune "$work/two.tc" --trials 8 --batch 4 --threads 1 --db "$work/two.sqlite"
expect 0 'session 4 of scale \(N=128\)' -- \
  tune "$work/two.tc" --entry scale --size-set N=32 --size-set 'N=128' --trials 8 --batch 4 --threads 1 --db "$work/two.sqlite"
# starting options: measured in the first round, named in the cache; a bad file is named
printf '{"tile": [8, 4, 16], "registerTile": [2, 4]}' >"$work/start.json"
printf '{"tile": [8,' >"$work/start_bad.json"
expect 0 'session 1 of matmul' -- tune "$examples/matmul.tc" --size M=12 --size K=8 --size N=10 --trials 2 --batch 2 \
  --threads 1 --db "$work/start.sqlite" --start "$work/start.json"
start_key=$("$cli" cache list --db "$work/start.sqlite" --json | grep -oE '"key":"[0-9a-f]{16}"' | head -1 | cut -d'"' -f4)
expect 0 'start +tile=\[8, 4, 16\] registerTile=\[2, 4\]' -- cache show "$start_key" --db "$work/start.sqlite"
expect 1 'start_bad.json: options: line 1, column 13: unexpected end' -- tune "$examples/matmul.tc" --start "$work/start_bad.json" --db "$db"
expect 1 "cannot read options file '.*none.json'" -- tune "$examples/matmul.tc" --start "$work/none.json" --db "$db"
expect 2 '--size-set takes NAME=INT' -- tune "$work/two.tc" --size-set 'N=x' --db "$work/two.sqlite"
expect 2 '--trials takes a whole number' -- tune "$examples/matmul.tc" --trials 0 --db "$db"
expect 2 '--patience takes a whole number from 0' -- tune "$examples/matmul.tc" --patience -1 --db "$db"
expect 1 'notes.sqlite is not a TC Studio tuning cache' -- tune "$examples/matmul.tc" --db "$work/notes.sqlite"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
