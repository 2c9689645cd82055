#!/usr/bin/env bash
# End to end under a real X server (xvfb-run): the app is started on a binary file, a .tc
# file with a NUL byte and a file that is not UTF-8. Each is refused with its reason, the
# app still comes up (on an empty document) and quits cleanly, and no byte on disk
# changes. Then the window test that types and saves runs on the same X server, not
# offscreen. Usage: open_refused_e2e.sh TCSTUDIO MAIN_WINDOW_TEST BINARY_FILE WORKDIR
set -euo pipefail
app=$1 window_test=$2 binary=$3 work=$4
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run is not installed"; exit 0; }
rm -rf "$work" && mkdir -p "$work"
export XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/runtime
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

cp "$binary" "$work/binary.tc"                                          # megabytes of machine code
printf 'def f(float(N) A) -> (B) {\n  B(i) = A(i)\0 + 1\n}\n' > "$work/nul.tc"
printf '# caf\xe9\ndef f(float(N) A) -> (B) {\n  B(i) = A(i)\n}\n' > "$work/latin1.tc"

fail=0
for f in binary nul latin1; do
  before=$(sha256sum "$work/$f.tc")
  if ! timeout 120 xvfb-run -a "$app" --quit-when-shown "$work/$f.tc" 2> "$work/$f.err"; then
    echo "FAIL: tcstudio did not come up and quit on $f.tc"; cat "$work/$f.err"; fail=1
  fi
  case $f in
    binary) reason="NUL byte|more than the .* a comprehension may have" ;;  # whichever it meets first
    nul) reason="NUL byte" ;;
    latin1) reason="not UTF-8" ;;
  esac
  if ! grep -Eq "$reason" "$work/$f.err"; then
    echo "FAIL: $f.tc: nothing matching '$reason' in what tcstudio said:"; cat "$work/$f.err"; fail=1
  elif [ "$(sha256sum "$work/$f.tc")" != "$before" ]; then
    echo "FAIL: $f.tc changed on disk"; fail=1
  else
    echo "ok: $f.tc refused ($(grep -Eo "$reason" "$work/$f.err" | head -1)), unchanged"
  fi
done

# Typing and saving, on a real X server: the refused files stay as they were.
timeout 300 xvfb-run -a "$window_test" -platform xcb files_that_are_not_text_are_refused_and_never_overwritten || fail=1
exit $fail
