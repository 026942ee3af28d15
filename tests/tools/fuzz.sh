#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ (libFuzzer) for a while, seeded from the real files in ../shared/corpus.
#   tests/tools/fuzz.sh [seconds per target, default 300] [target...]
#   tests/tools/fuzz.sh --smoke          build, then run each target over its seeds only (no mutation)
# Not part of tests/run.sh (a cold build of the instrumented crate alone takes far longer than the smoke budget).
#
# The toolchain is stable: RUSTC_BOOTSTRAP=1 lets it accept the -Z flags cargo-fuzz passes (sanitizer coverage
# instrumentation). No sanitizer by default (FUZZ_SANITIZER=address to add ASan): the parsers are safe Rust, and
# what the targets look for (panics, overflow under debug assertions, hangs, broken output promises) needs none.
# Seeds are copied into fuzz/corpus/<target> at run time (never committed); what libFuzzer adds stays there and
# is reused by the next run. Crashes go to fuzz/artifacts/<target>/; the script then exits 1.
# The corpus outlives the machine through fuzz/kept/<target>.tar.xz: unpacked into fuzz/corpus/<target> before the
# run, and with FUZZ_KEEP=1 rewritten after it from the run's corpus minimised by libFuzzer's merge (the seeds,
# copies of ../shared/corpus, left out). A plateau takes hours on these machines; sessions add to one corpus.
# tests/tools/fuzz-coverage.sh tells which source regions a run added (libFuzzer's cov also counts dependencies).
# Runs under `nice -n 10` (FUZZ_NICE=0 for a quiet machine): the machines are shared. FUZZ_NO_BUILD=1 skips the
# build and runs the targets as last built.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fuzz="$root/fuzz"
shared="${DATAHOST_CORPUS:-$root/../shared/corpus}"
smoke=false
if [ "${1:-}" = "--smoke" ]; then smoke=true; shift; secs=0; else secs=${1:-300}; shift || true; fi
all=(query form4 thirteen_f house_index ptr_text fec nhtsa prices openapi)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
# Inputs longer than this are cut (libFuzzer -max_len; FUZZ_MAX_LEN): seeds are the first 64 KiB of each file, cut
# at a line. A smaller cap (8192) runs the big-file parsers many times faster, to reach a plateau sooner.
max_len=${FUZZ_MAX_LEN:-65536}
niceness=${FUZZ_NICE:-10}

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# The fuzz crate is its own workspace; its lock starts from the main one so both build the same versions.
[ -f "$fuzz/Cargo.lock" ] || cp "$root/Cargo.lock" "$fuzz/Cargo.lock"
# The openapi target's seeds are the manifests of the real plugin libraries.
ls "$root"/target/debug/libdatahost_*.so >/dev/null 2>&1 || (cd "$root" && nice -n 10 cargo build --workspace)

export RUSTC_BOOTSTRAP=1
bin_dir="$fuzz/target/x86_64-unknown-linux-gnu/release"
# FUZZ_NO_BUILD=1 runs the targets as last built (a long campaign on one build while the tree keeps changing).
if [ "${FUZZ_NO_BUILD:-0}" = 1 ]; then
  for t in "${targets[@]}"; do
    [ -x "$bin_dir/$t" ] || { echo "FUZZ_NO_BUILD: $bin_dir/$t is not built" >&2; exit 2; }
  done
else
  (cd "$fuzz" && nice -n 10 cargo fuzz build --sanitizer "${FUZZ_SANITIZER:-none}")
fi

# seed <target> <file>...: each file's first 64 KiB (cut after its last whole line), named by a `\0name:` line.
seed() {
  local target=$1; shift
  local dir="$fuzz/corpus/$target"
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] || continue
    python3 - "$f" "$dir/seed-$(basename "$f")" "$max_len" <<'PY'
import sys
src, dst, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
name = src.rsplit("/", 1)[-1]
head = b"\0name:" + name.encode() + b"\n"
data = open(src, "rb").read()
room = cap - len(head)
if len(data) > room:
    cut = data.rfind(b"\n", 0, room)
    data = data[: cut + 1 if cut > 0 else room]
open(dst, "wb").write(head + data)
PY
  done
}

mkdir -p "$fuzz/logs"
# Targets that write their own seeds at start (ptr_text, openapi) are told where, each only in its own run.
declare -A seed_env=()
for t in "${targets[@]}"; do
  case $t in
    query)
      # The query strings of the contract's examples.
      mkdir -p "$fuzz/corpus/query"
      grep -oE '/v1/[a-z0-9/-]+\?[^ `"<>)]+' "$root/../shared/SPEC.md" "$root/README.md" 2>/dev/null | sed 's/^[^?]*?//' | sort -u \
        | awk -v d="$fuzz/corpus/query" '{ f = sprintf("%s/seed-%03d", d, NR); printf "%s", $0 > f; close(f) }'
      ;;
    form4) seed form4 "$shared"/sec-form4/* ;;
    thirteen_f) seed thirteen_f "$shared"/sec-13f/* ;;
    house_index) seed house_index "$shared"/house-fd/*.txt "$shared"/house-fd/*.xml "$shared"/house-stock-watcher/*.csv ;;
    ptr_text)
      mkdir -p "$fuzz/corpus/ptr_text"
      seed_env[ptr_text]="DATAHOST_FUZZ_PTR_SEEDS=$shared/house-fd:$fuzz/corpus/ptr_text"
      ;;
    fec) seed fec "$shared"/fec/* ;;
    nhtsa) seed nhtsa "$shared"/nhtsa/* ;;
    prices) seed prices "$shared"/prices/* ;;
    openapi)
      mkdir -p "$fuzz/corpus/openapi"
      seed_env[openapi]="DATAHOST_FUZZ_MANIFEST_SEEDS=$root/target/debug:$fuzz/corpus/openapi"
      ;;
    *) echo "unknown target $t (known: ${all[*]})" >&2; exit 2 ;;
  esac
done

# unpack_kept <target>: the kept corpus into the working one (files already there stay as they are).
unpack_kept() {
  local kept="$fuzz/kept/$1.tar.xz"
  [ -f "$kept" ] || return 0
  mkdir -p "$fuzz/corpus/$1"
  tar -xJf "$kept" -C "$fuzz/corpus/$1" --skip-old-files
}

# keep <target>: the run's corpus, minimised (libFuzzer -merge=1: the fewest inputs with the same coverage) and
# without the seeds, packed reproducibly (sorted names, no owners or times) into fuzz/kept/<target>.tar.xz.
keep() {
  local t=$1 min
  min=$(mktemp -d)
  "$bin_dir/$t" -merge=1 -max_len=$max_len -timeout=10 -rss_limit_mb=2048 "$min" "$fuzz/corpus/$t" \
    > "$fuzz/logs/$t.merge.log" 2>&1 || { rm -rf "$min"; return 1; }
  # Seeds are re-made from ../shared/corpus (and the plugin libraries) at every run: every input libFuzzer did not
  # name by its SHA-1 is one. A merge names what it keeps by content hash, so a seed is found by its bytes.
  for f in "$fuzz/corpus/$t"/*; do
    [ -f "$f" ] || continue
    [[ $(basename "$f") =~ ^[0-9a-f]{40}$ ]] && continue
    rm -f "$min/$(sha1sum "$f" | cut -d' ' -f1)"
  done
  mkdir -p "$fuzz/kept"
  (cd "$min" && find . -type f -printf '%P\n' | LC_ALL=C sort \
    | tar -cf - --owner=0 --group=0 --numeric-owner --mtime=@0 --no-recursion -T - | xz -6 -T1 > "$fuzz/kept/$t.tar.xz.new")
  mv "$fuzz/kept/$t.tar.xz.new" "$fuzz/kept/$t.tar.xz"
  echo "kept $t: $(find "$min" -type f | wc -l) inputs, $(du -k "$fuzz/kept/$t.tar.xz" | cut -f1) KiB packed" >&2
  rm -rf "$min"
}

failed=()
printf '%-12s %10s %8s %8s %14s %12s  %s\n' target execs cov ft "last new cov" "late gain" result
for t in "${targets[@]}"; do
  log="$fuzz/logs/$t.log"
  mkdir -p "$fuzz/artifacts/$t"
  unpack_kept "$t"
  if $smoke; then run=(-runs=0); else run=(-max_total_time="$secs"); fi
  status=0
  # A target's dictionary (fuzz/dicts/<target>.dict), where it has one: tokens of its input format.
  dict=(); [ -f "$fuzz/dicts/$t.dict" ] && dict=(-dict="$fuzz/dicts/$t.dict")
  env ${seed_env[$t]:+"${seed_env[$t]}"} nice -n "$niceness" "$bin_dir/$t" "${run[@]}" "${dict[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$fuzz/artifacts/$t/" "$fuzz/corpus/$t" > "$log" 2>&1 || status=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | awk '{print $2}')
  ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | awk '{print $2}')
  # Where in the run the edge coverage (`cov`, not the finer features `ft`, which creep up for long) last grew,
  # as a share of all executions: early means the target had plateaued.
  grew=$(grep -E '^#[0-9]+' "$log" | awk '{ for (i = 1; i < NF; i++) if ($i == "cov:") c = $(i + 1) + 0 }
    c > best { best = c; at = substr($1, 2) } END { print at }')
  share=$([ -n "$grew" ] && [ -n "$execs" ] && [ "$execs" -gt 0 ] && echo "$((100 * grew / execs))%" || echo "-")
  # Edges gained in the second half of the run's executions: a plateau gains (almost) none.
  late=$(grep -E '^#[0-9]+' "$log" | awk '{ for (i = 1; i < NF; i++) if ($i == "cov:") c = $(i + 1) + 0
    n[NR] = substr($1, 2) + 0; v[NR] = c } END { h = v[1]; for (i = 1; i <= NR; i++) if (n[i] <= n[NR] / 2) h = v[i]
    if (NR) printf "+%d", v[NR] - h }')
  result=ok
  [ "$status" -eq 0 ] || { result="FAILED (exit $status, see $log)"; failed+=("$t"); }
  printf '%-12s %10s %8s %8s %14s %12s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$share" "${late:--}" "$result"
  if [ "${FUZZ_KEEP:-0}" = 1 ] && ! $smoke; then keep "$t" || echo "keeping the $t corpus failed: $fuzz/logs/$t.merge.log" >&2; fi
done
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]} (inputs in fuzz/artifacts/)" >&2; exit 1; }
