#!/usr/bin/env bash
# The test command: on a fresh Debian 12 machine (as root) installs what is missing,
# configures, builds and runs the default tests (every label but `bench`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset default
cmake --build --preset default
ctest --preset default
