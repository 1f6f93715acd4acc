#!/usr/bin/env bash
# The windowed walkthrough as a person sees it, on a machine without a
# display or GPU: Xvfb (a virtual X server) and Mesa's software renderers
# (lavapipe, Vulkan on the CPU), from Debian's packages (Debian 12: Mesa
# 22.3.6, LLVM 15). Plays
# the scripted walkthrough, saves the window at the moment the hand touches
# the cup, checks the picture is not blank.
#
#   bash scripts/screenshot.sh [OUT.jpg]      (default docs/walkthrough_window.jpg)
#
# Not part of CI (full Bevy takes long to build on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/walkthrough_window.jpg}"
png="$(mktemp --suffix .png)"
if ! command -v xvfb-run >/dev/null || ! command -v convert >/dev/null \
    || ! [ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        xvfb xauth mesa-vulkan-drivers libvulkan1 libgl1-mesa-dri libegl1 \
        libx11-6 libxcursor1 libxrandr2 libxi6 libxkbcommon-x11-0 imagemagick >/dev/null
fi
# Bevy 0.20.1's umbrella crate asks for rustc 1.97.1; the code builds with
# older toolchains, so the check is skipped. The dev profile (dependencies
# at opt-level 2, see Cargo.toml) saves a second full build.
# The crate itself at opt-level 2 too, so that the timing line is fair.
export CARGO_PROFILE_DEV_OPT_LEVEL=2
cargo build --ignore-rust-version --features viewer --example walkthrough_window
bin="${CARGO_TARGET_DIR:-target}/debug/examples/walkthrough_window"
# Vulkan through lavapipe (Mesa's CPU driver).
export WGPU_BACKEND=vulkan VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
timeout 900 xvfb-run -a -s "-screen 0 1280x720x24" \
    "$bin" --screenshot "$png"
python3 scripts/png_check.py "$png"
# A JPEG for the README (the PNG is about 1 MB).
convert "$png" -quality 80 "$out"
rm -f "$png"
echo "wrote $out"
