#!/usr/bin/env bash
# The run command: installs what is missing, builds, and opens TC Studio on a bundled
# example (or on the .tc file given as the first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target tcstudio tcstudio-cli
exec ./build/app/tcstudio "$@"
