#!/usr/bin/env bash
# Builds Kiln's libFuzzer targets with clang-22 (ASan+UBSan+libFuzzer) and runs
# each for a bounded time, seeded with the kept corpus (tests/fuzz/corpus/),
# examples/, the lit inputs and the kept regressions.
#   scripts/fuzz.sh [--with-tests] [--update-corpus] [seconds-per-target]  (default 60)
#   scripts/fuzz.sh --hours N      a long campaign: N hours per target, then
#                                  the corpus is merged back (--update-corpus)
#   --target T (repeatable)        only these targets (e.g. kiln-fuzz-rules), so
#                                  that campaigns of several targets can run side by side
# --with-tests also builds the whole test suite in that sanitized build and
# runs it first (ctest): the ASan+UBSan stage of scripts/test.sh.
# Each run uses a new seed, printed ("fuzz: seed N"): KILN_FUZZ_SEED=N replays
# it. --update-corpus merges what the run found into tests/fuzz/corpus/<target>/
# (libFuzzer's -merge=1 keeps only inputs that add coverage; inputs larger
# than KILN_FUZZ_CORPUS_MAX_BYTES, 1200 by default, stay out of the repository).
# A crash leaves its input in build-fuzz/findings/<target>/ and fails the run;
# fix it and keep the input as tests/fuzz/regressions/<kind>-<what>.<ext>
# (kind: jaxpr, rewrites, rules or generated): ctest runs it again in the
# sanitized build. kiln-fuzz-generated is structure-aware: its input is the
# differential-testing generator's decisions (docs/soundness.md), and it
# checks the program against the interpreter (KILN_FUZZ_JIT=1: the JIT too).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_tests=0
update_corpus=0
seconds=60
only=()
while (($#)); do
  case "$1" in
    --with-tests) with_tests=1 ;;
    --update-corpus) update_corpus=1 ;;
    --hours) seconds=$(( ${2:?--hours needs a number} * 3600 )); update_corpus=1; shift ;;
    --hours=*) seconds=$(( ${1#--hours=} * 3600 )); update_corpus=1 ;;
    --target) only+=("${2:?--target needs a name}"); shift ;;
    --target=*) only+=("${1#--target=}") ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) seconds="$1" ;;
  esac
  shift
done
build="${KILN_FUZZ_BUILD_DIR:-$root/build-fuzz}"
# A new seed per run (so CI does not re-explore the same inputs every time),
# printed so that a finding can be replayed.
seed="${KILN_FUZZ_SEED:-$(( ($(date +%s) ^ $$ ^ RANDOM) % 2147483647 + 1 ))}"
echo "fuzz: seed $seed (replay with KILN_FUZZ_SEED=$seed)"

need=()
for p in clang-22 libclang-rt-22-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
"$root/scripts/setup.sh" "$root/build" >/dev/null # the main build's dependencies

if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables only: sanitizer reports keep file:line, and the
  # build stays well inside CI's time on 2 cores (full -g is much slower).
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    -DKILN_FUZZ=ON -DKILN_BUILD_BENCH=OFF \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm >/dev/null
fi
targets=(kiln-fuzz-jaxpr kiln-fuzz-rewrites kiln-fuzz-generated)
[ -f "$root/tests/fuzz/FuzzRuleLoader.cpp" ] && targets+=(kiln-fuzz-rules)
if ((${#only[@]})); then
  for t in "${only[@]}"; do
    [[ " ${targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t (have: ${targets[*]})" >&2; exit 2; }
  done
  targets=("${only[@]}")
fi
if ((with_tests)); then
  cmake --build "$build" -j"${KILN_JOBS:-$(nproc)}"
  echo "== sanitized test suite (ASan + UBSan, clang)"
  # LeakSanitizer stays on for the fuzzers below; in the suite, MLIR's own
  # uninstrumented singletons would be reported at exit.
  (cd "$build" && ASAN_OPTIONS="detect_leaks=0" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --output-on-failure -j"${KILN_JOBS:-$(nproc)}")
else
  cmake --build "$build" -j"${KILN_JOBS:-$(nproc)}" --target "${targets[@]}"
fi

seed_corpus() { # target -> corpus dir seeded from the repository
  local dir="$build/corpus/$1"; mkdir -p "$dir"
  if [ -d "$root/tests/fuzz/corpus/$1" ]; then cp "$root/tests/fuzz/corpus/$1"/* "$dir" 2>/dev/null || true; fi
  case "$1" in
    kiln-fuzz-jaxpr) find "$root/examples" "$root/tests/importer" -name '*.jaxpr' -exec cp {} "$dir" \; ;;
    kiln-fuzz-rewrites) find "$root/examples" "$root/tests/dialect" "$root/tests/transforms" -name '*.mlir' -exec cp {} "$dir" \; ;;
    kiln-fuzz-rules) find "$root/rules" "$root/examples" "$root/tests/rules" -name '*.yaml' -exec cp {} "$dir" \; 2>/dev/null || true ;;
  esac
  find "$root/tests/fuzz/regressions" -name "${1#kiln-fuzz-}-*" -exec cp {} "$dir" \; 2>/dev/null || true
  echo "$dir"
}

status=0
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
max_len() { # structured inputs (jaxpr, MLIR, YAML) need room: a program, not a token
  case "$1" in
    kiln-fuzz-rules) echo 32768 ;;
    kiln-fuzz-generated) echo 4096 ;; # the generator's decisions, not text
    *) echo 65536 ;;
  esac
}
# kiln-fuzz-generated: longer inputs from the start (libFuzzer grows them
# slowly by default, and a few bytes of decisions are a tiny program): in its
# first runs, 1,600 executions reached 18,900 coverage points this way, where
# 12,900 with the default length control (inputs of at most 11 bytes after 7
# minutes) had reached 14,000.
extra_flags() {
  case "$1" in
    kiln-fuzz-generated) echo "-len_control=0" ;;
  esac
}
for t in "${targets[@]}"; do
  corpus="$(seed_corpus "$t")"
  findings="$build/findings/$t"; mkdir -p "$findings"
  echo "fuzz: $t for ${seconds}s, seed $seed, max_len $(max_len "$t") (corpus $(ls "$corpus" | wc -l) files)"
  if ! "$build/bin/$t" "$corpus" -seed="$seed" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
       -max_len="$(max_len "$t")" $(extra_flags "$t") -artifact_prefix="$findings/" -print_final_stats=1 2>"$build/$t.log"; then
    echo "fuzz: $t FOUND A CRASH with seed $seed (see $findings and $build/$t.log)"; tail -30 "$build/$t.log"; status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/$t.log" | sed "s/^/fuzz: $t /"
  if ((update_corpus)); then
    # Keep the small inputs that add coverage over what the repository has.
    kept="$root/tests/fuzz/corpus/$t"; mkdir -p "$kept"
    small="$build/corpus-small/$t"; rm -rf "$small"; mkdir -p "$small"
    # Only what the fuzzer made (named by its SHA-1): the seeds are in the repository already.
    find "$corpus" -regextype posix-extended -type f -regex '.*/[0-9a-f]{40}' -size -"${KILN_FUZZ_CORPUS_MAX_BYTES:-1200}"c -exec cp {} "$small" \;
    "$build/bin/$t" -merge=1 "$kept" "$small" -timeout=20 -rss_limit_mb=4096 2>"$build/$t.merge.log" || true
    echo "fuzz: $t corpus $kept: $(ls "$kept" | wc -l) files, $(du -sh "$kept" | cut -f1)"
  fi
done
if ((status)) && [ "${KILN_FUZZ_REPORT_ONLY:-0}" = 1 ]; then
  echo "fuzz: findings above are reported, not fatal (KILN_FUZZ_REPORT_ONLY=1); fix them and add them to tests/fuzz/regressions/"
  exit 0
fi
exit $status
