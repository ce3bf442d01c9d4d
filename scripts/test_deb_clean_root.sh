#!/bin/sh
# Installs the .deb CPack made into a fresh Debian 12 root (debootstrap, minbase) and checks what a
# user gets: apt resolves its Depends, both programs run, the menu entry, icon, metadata and man
# page are in place, and the app starts offscreen and takes a screenshot. Needs root, debootstrap
# and the Debian mirror (or a root made earlier: ROOT=/path/to/root).
#   scripts/test_deb_clean_root.sh build/stepformer_0.1.0_amd64.deb
set -eu
DEB=$(readlink -f "$1")
ROOT=${ROOT:-$(mktemp -d /tmp/stepformer-root.XXXXXX)}
if [ ! -x "$ROOT/bin/sh" ]; then
    debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp "$DEB" "$ROOT/tmp/"
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
trap 'umount "$ROOT/proc" 2>/dev/null || true' EXIT
chroot "$ROOT" sh -eu -c "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq /tmp/$(basename "$DEB") >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
    echo '--- installed:'; dpkg -s stepformer | grep -E '^(Version|Depends):'
    stepformer-cli --version
    stepformer-cli train --epochs 3 --quiet --save /tmp/t.safetensors
    stepformer-cli translate --weights /tmp/t.safetensors --src 'ich mochte ein bier P'
    test -f /usr/share/applications/org.stepformer.Stepformer.desktop
    test -f /usr/share/icons/hicolor/scalable/apps/org.stepformer.Stepformer.svg
    test -f /usr/share/metainfo/org.stepformer.Stepformer.metainfo.xml
    test -f /usr/share/man/man1/stepformer-cli.1
    grep -q '^Exec=stepformer %f' /usr/share/applications/org.stepformer.Stepformer.desktop
    QT_QPA_PLATFORM=offscreen stepformer --no-train --preset untrained --screenshot /tmp/shot.png --size 1366x768
    test -s /tmp/shot.png
    QT_QPA_PLATFORM=offscreen stepformer /tmp/t.safetensors --screenshot /tmp/shot2.png
    test -s /tmp/shot2.png
    echo '--- the .deb works in a clean Debian 12 root'
"
cp "$ROOT/tmp/shot2.png" /tmp/stepformer-clean-root-shot.png 2>/dev/null || true
