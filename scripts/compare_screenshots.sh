#!/bin/sh
# Compares two folders of PNGs made by scripts/screenshot_states.sh: prints, per file, how many
# pixels differ (ImageMagick's `compare -metric AE`), and exits 1 when any file differs or is missing.
#   scripts/compare_screenshots.sh BEFORE_DIR AFTER_DIR
set -u
before=$1 after=$2 status=0
for a in "$before"/*.png; do
    b="$after/$(basename "$a")"
    if [ ! -f "$b" ]; then
        echo "missing: $(basename "$a")"; status=1; continue
    fi
    n=$(compare -metric AE "$a" "$b" null: 2>&1)
    [ "$n" = "0" ] || status=1
    echo "$n $(basename "$a")"
done
exit $status
