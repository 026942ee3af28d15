#!/usr/bin/env bash
# Which source lines a fuzz campaign newly reached, to tell a plateau in the project's own code from slow gains in
# its dependencies (libFuzzer's `cov:` counts both):
#   tests/tools/fuzz-coverage.sh <target> <before> <after>
# <before> and <after> are corpus directories or kept archives (fuzz/kept/<target>.tar.xz, or a git revision of one:
# `HEAD~3:fuzz/kept/openapi.tar.xz`). The target is built with LLVM source coverage (`cargo fuzz coverage`), each
# corpus runs once through it, and the script prints the code regions (LLVM's unit of source coverage: a branch
# arm, a loop body, a `?`) that <after> runs and <before> does not: project files by line:column, dependency
# files as counts. Give it the corpus at the middle of a long run and the one at its end: "0 new in project code"
# over a run's second half is the plateau issue 13 asks for.
#
# Needs llvm-profdata and llvm-cov of the LLVM that rustc uses (`rustc -vV`), installed here as Debian's llvm-<N>.
# Not part of tests/run.sh (a coverage build of the fuzz crate takes many minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 3 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
target=$1 before=$2 after=$3

llvm=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
if ! command -v "llvm-profdata-$llvm" >/dev/null; then
  apt-get install -y "llvm-$llvm" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# corpus <source> <dir>: a corpus directory as it is, or an archive (a file, or `<rev>:<path>` in git) unpacked.
corpus() {
  local source=$1 dir=$2
  mkdir -p "$dir"
  if [ -d "$source" ]; then
    cp -r "$source"/. "$dir"/
  elif [ -f "$source" ]; then
    tar -xJf "$source" -C "$dir"
  else
    git -C "$root" show "$source" | tar -xJf - -C "$dir"
  fi
}
corpus "$before" "$work/before"
corpus "$after" "$work/after"

# The coverage build. cargo-fuzz then merges the raw profiles with the llvm-profdata of a rustup component this
# machine does not have; that last step fails and is not needed: the runs below use Debian's tools.
export RUSTC_BOOTSTRAP=1
(cd "$root/fuzz" && nice -n 5 cargo fuzz coverage --sanitizer none "$target" "$work/before" > "$work/build.log" 2>&1) || true
bin="$root/fuzz/target/x86_64-unknown-linux-gnu/coverage/x86_64-unknown-linux-gnu/release/$target"
[ -x "$bin" ] || { tail -20 "$work/build.log" >&2; echo "the coverage build of $target failed" >&2; exit 1; }

# lcov <corpus dir> <out>: the coverage (JSON export) of one pass over the corpus.
coverage() {
  local raw=$work/raw-$(basename "$1")
  mkdir -p "$raw"
  LLVM_PROFILE_FILE="$raw/%p-%m.profraw" "$bin" -runs=0 -rss_limit_mb=4096 -timeout=30 "$1" > "$raw.log" 2>&1 \
    || { tail -5 "$raw.log" >&2; exit 1; }
  "llvm-profdata-$llvm" merge -sparse "$raw"/*.profraw -o "$raw.profdata"
  "llvm-cov-$llvm" export -format=text -skip-expansions --instr-profile="$raw.profdata" "$bin" > "$2"
  echo "$(basename "$1"): $(grep -a DONE "$raw.log" | tail -1)"
}
coverage "$work/before" "$work/before.json"
coverage "$work/after" "$work/after.json"

python3 - "$work/before.json" "$work/after.json" "$root/" <<'PY'
import collections, json, sys

def covered(path):
    """Per file: the code regions run at least once (line, column of their start), and their lines."""
    regions = collections.defaultdict(set)
    for f in json.load(open(path))["data"][0]["files"]:
        for line, col, count, has_count, is_entry, is_gap in f["segments"]:
            if has_count and is_entry and not is_gap and count > 0:
                regions[f["filename"]].add((line, col))
    return regions

before, after, root = covered(sys.argv[1]), covered(sys.argv[2]), sys.argv[3]
new = {f: sorted(after[f] - before.get(f, set())) for f in after}
new = {f: v for f, v in new.items() if v}
own = {f[len(root):]: v for f, v in new.items() if f.startswith(root)}
deps = {f: v for f, v in new.items() if not f.startswith(root)}
lost = sum(len(before[f] - after.get(f, set())) for f in before)
print(f"code regions run: {sum(map(len, before.values()))} -> {sum(map(len, after.values()))}; "
      f"new in project code: {sum(map(len, own.values()))} ({len(own)} files); "
      f"new in dependencies: {sum(map(len, deps.values()))} ({len(deps)} files); run before, not after: {lost}")
for f, v in sorted(own.items()):
    shown = ", ".join(f"{line}:{col}" for line, col in v[:20])
    print(f"  project {f}: {shown}{' ...' if len(v) > 20 else ''}")
for f, v in sorted(deps.items(), key=lambda kv: -len(kv[1]))[:10]:
    print(f"  dependency {f.split('/registry/src/')[-1].split('/', 1)[-1]}: {len(v)} regions")
PY
