#!/usr/bin/env bash
# Installs every Debian 12 package TC Studio needs to build, test and run.
# Idempotent: when everything is already present it only checks (about a second).
set -euo pipefail

packages=(
  # build tools
  cmake ninja-build pkg-config g++ git
  # compiler core: isl (polyhedral), LLVM 19 (CPU code + JIT), clang 19 (libFuzzer)
  libisl-dev libgmp-dev llvm-19-dev clang-19 libclang-rt-19-dev
  # JSON for options, requests and results (header-only)
  nlohmann-json3-dev
  # tuner: cost model and cache
  libxgboost-dev libsqlite3-dev
  # desktop app
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqscintilla2-qt6-dev libgl-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth
  # peers the CPU benchmark measures against (bench/bench_cpu)
  libopenblas-dev libdnnl-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
