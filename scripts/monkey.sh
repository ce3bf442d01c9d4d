#!/bin/sh
# The long monkey test of the app (docs/reliability.md): EVENTS random valid events (default
# 10000) from SEED (default: a random one, printed) against the main window offscreen, failing on
# any Qt warning and on the event loop blocked for more than MAX_BLOCK_MS (default 250). Needs the
# normal build (build/bin/ui_test_monkey); 10,000 events took 5.4 minutes in one run here. ctest runs a short
# version (400 events, fixed seed).
#   scripts/monkey.sh [EVENTS] [SEED] [MAX_BLOCK_MS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$ROOT/build/bin/ui_test_monkey"
[ -x "$BIN" ] || { echo "monkey: build first ($BIN is missing)" >&2; exit 2; }
seed=${2:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
settings=$(mktemp -d)  # the run's settings, not the user's
trap 'rm -rf "$settings"' EXIT
STEPFORMER_MONKEY_EVENTS=${1:-10000} STEPFORMER_MONKEY_SEED=$seed STEPFORMER_MONKEY_MAX_BLOCK_MS=${3:-250} \
    QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$settings" QTEST_FUNCTION_TIMEOUT=3600000 "$BIN" -maxwarnings 0
