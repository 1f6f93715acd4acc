#!/usr/bin/env bash
# The cost of the current tree against commit <rev>, in one run: builds <rev>
# in a temporary git worktree, runs the criterion benches of the per-frame
# pipeline (world_frame), the broad phase (broad_phase) and the narrow phase
# (convex_boolean) there with --save-baseline prev, then the same benches on
# the current tree with --baseline prev, and prints criterion's change per
# bench. Both use the current tree's benches/ (the same instrument; the
# library is what differs) and one target directory (criterion's baselines
# live in it).
#
# Usage: scripts/bench-vs-commit.sh <rev> [criterion filter regex]
# The default filter keeps this crate's own benches at 10 000 bodies or the
# 40-point hulls (not the peers'): a few minutes per side.
set -euo pipefail
rev=${1:?usage: scripts/bench-vs-commit.sh <rev> [filter]}
filter=${2:-'world_frame/|broad_phase/(sap|grid_sap)/10000$|bounds_update/(fixed_cube|dynamic_box_read_ahead)/10000$|convex_boolean/points=40/(gjk_warm|lin_canny_warm)'}
root=$(git rev-parse --show-toplevel)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
tmp=$(mktemp -d)
cleanup() {
    git -C "$root" worktree remove --force "$tmp/wt" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
git -C "$root" worktree add --quiet --detach "$tmp/wt" "$rev"
rm -rf "$tmp/wt/benches"
cp -r "$root/benches" "$tmp/wt/benches"
cp "$root/peers/Cargo.toml" "$tmp/wt/peers/Cargo.toml"
benches=(--bench world_frame --bench broad_phase --bench convex_boolean)
echo "== $rev ($(git -C "$root" rev-parse --short "$rev")): baseline prev; load: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$tmp/wt" && cargo bench -q -p icollide-peers "${benches[@]}" -- --save-baseline prev "$filter") \
    >"$tmp/prev.log" 2>&1 || { cat "$tmp/prev.log"; exit 1; }
echo "== current tree ($(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes')) against prev; load: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$root" && cargo bench -q -p icollide-peers "${benches[@]}" -- --baseline prev "$filter") \
    >"$tmp/now.log" 2>&1 || { cat "$tmp/now.log"; exit 1; }
# Criterion prints the bench's name, then `time:`, then `change:` with the
# time's change on the same line, or (benches with a throughput) on the
# next `time:` line, then its verdict.
awk '/^[a-z_]+\/[^ ]*/ { name = $1 }
     /change:/ { if ($0 ~ /\[/) { sub(/^ *change: */, ""); printf "%-46s %s\n", name, $0 } else pending = 1; next }
     pending && /time:/ { sub(/^ *time: */, ""); printf "%-46s %s\n", name, $0; pending = 0; next }
     /(improved|regressed|No change|within noise)/ { sub(/^ */, ""); printf "%-46s   %s\n", "", $0 }' "$tmp/now.log"
echo "== load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
