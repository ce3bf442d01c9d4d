#!/bin/sh
# Installs the Debian 12 packages Stepformer builds with, only those missing (no network use when
# everything is already there). Uses sudo when not run as root.
set -eu
PKGS="cmake g++ make pkg-config python3
qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools
qt6-l10n-tools libgl-dev libxkbcommon-x11-0 qt6-qpa-plugins
libopenblas0-openmp libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers
fonts-dejavu-core fonts-noto-cjk qt6-translations-l10n
desktop-file-utils appstream groff-base dpkg-dev file"
# (fonts-noto-cjk renders the Chinese UI; qt6-translations-l10n has Qt's own qtbase_zh_CN.qm.
# --gui-extras, which once added the CJK font, is accepted and changes nothing.
# desktop-file-utils, appstream and groff-base validate the menu entry, metadata and man pages;
# dpkg-dev's dpkg-shlibdeps fills in the .deb's Depends, and CPack reads binaries with file.)
# libopenblas0-openmp: the CPU backend opens it at run time for large products where it measures
# faster than Eigen (docs/cpu_blas.md); it also becomes the system's libblas.so.3 alternative.
# python3 (its standard library only) runs scripts/pth_to_safetensors.py and its test.
MISSING=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || MISSING="$MISSING $p"
done
if [ -z "$MISSING" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing$MISSING"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $MISSING
