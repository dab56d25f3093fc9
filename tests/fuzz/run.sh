#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan in build-fuzz/ (or, with FUZZ_BUILD=dir,
# in an existing build configured with -DPLANETGEN_FUZZ=ON -DPLANETGEN_SANITIZE=address,undefined,
# such as CI's build-asan/), then for each target:
#  1. replays every reproducer in tests/fuzz/findings/<target>/ once (inputs of earlier findings,
#     kept as regression tests; a finding that still reproduces fails the run), and
#  2. fuzzes for [seconds] (default 60) on a working copy of its seed corpus
#     (build-fuzz/fuzz/<target>/corpus; inputs found by earlier runs stay there).
# Fails if any input crashes, leaks, makes a sanitizer report, takes more than 10 s, asks for a
# single allocation over 512 MB (-malloc_limit_mb: the harnesses cap images at 1 M pixels and
# the reader caps chunks at 64 MB, so that is an input amplifying its size into memory) or needs
# more than 4 GB in all; the input is then in build-fuzz/fuzz/<target>/artifacts/ and the
# command to reproduce it is printed. Ends with one line per target: runs, exec/s, coverage.
# Needs clang, libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) and llvm
# (llvm-symbolizer, for file:line in the stacks). FUZZ_CXX picks another clang++.
# Usage: [FUZZ_BUILD=dir] tests/fuzz/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:-60}
jobs=${JOBS:-$(nproc)}
build=${FUZZ_BUILD:-build-fuzz}
targets=(config heightmap viewer_path http_request tile_input)

start=$SECONDS
if [[ -n ${FUZZ_BUILD:-} ]]; then
  # Used as configured (CI: the asan stage's clang build, Debug at -O1 -g1, assertions on).
  cache=$build/CMakeCache.txt
  if [[ ! -f $cache ]] || ! grep -q '^PLANETGEN_FUZZ:BOOL=ON$' "$cache" ||
    ! grep -q '^PLANETGEN_SANITIZE:STRING=address,undefined$' "$cache"; then
    echo "fuzz: FUZZ_BUILD=$build is not a build configured with -DPLANETGEN_FUZZ=ON" \
      "-DPLANETGEN_SANITIZE=address,undefined (CI: run the asan stage first)" >&2
    exit 1
  fi
else
  # -O1 with line tables only: the stacks still name file and line, and the build takes less
  # of CI's time than -O2 -g (fewer executions per second in exchange).
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" -DPLANETGEN_TESTS=OFF -DPLANETGEN_FUZZ=ON \
    -DPLANETGEN_SANITIZE=address,undefined >/dev/null
fi
cmake --build "$build" -j"$jobs" --target "${targets[@]/%/_fuzz}"
echo "fuzz: build took $((SECONDS - start)) s"

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
limits=(-timeout=10 -malloc_limit_mb=512 -rss_limit_mb=4096)
shopt -s nullglob
# fuzz_one <target>: replays the target's findings, then fuzzes it; its messages go to
# <work>/messages, its summary line to <work>/summary, and <work>/failed marks a failure.
fuzz_one() {
  local target=$1 failed=0
  local work=$root/$build/fuzz/$target
  local binary findings reproduced finding start code runs rate rss cov line
  exec 2>"$work/messages"
  binary=$root/$build/tests/fuzz/${target}_fuzz
  rm -rf "$work/artifacts"
  mkdir -p "$work/corpus" "$work/artifacts"

  findings=(tests/fuzz/findings/"$target"/*)
  reproduced=0
  for finding in "${findings[@]}"; do
    if ! "$binary" "${limits[@]}" "$finding" >"$work/finding.log" 2>&1; then
      reproduced=$((reproduced + 1))
      echo "fuzz: $target: the finding $finding still reproduces:" >&2
      grep -E '^(==[0-9]+==|SUMMARY|[a-z_]+_fuzz:)|ERROR|runtime error' "$work/finding.log" | head -n 8 >&2 || true
      echo "fuzz: reproduce with: $binary ${limits[*]} $root/$finding" >&2
    fi
  done

  cp "tests/fuzz/corpus/$target"/* "$work/corpus/"
  if [[ $target == config ]]; then cp configs/*.toml "$work/corpus/"; fi  # as shipped now
  start=$SECONDS
  code=0
  "$binary" -max_total_time="$seconds" "${limits[@]}" \
    -dict="tests/fuzz/$target.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" >"$work/log.txt" 2>&1 || code=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log.txt" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log.txt" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$work/log.txt" | tail -1 || true)
  line="$target: ${runs:-?} runs in $((SECONDS - start)) s, ${rate:-?} exec/s,"
  line+=" ${cov:-no coverage line}, peak RSS ${rss:-?} MB"
  line+=", findings replayed: ${#findings[@]}, still reproducing: $reproduced"
  ((reproduced == 0)) || failed=1
  if ((code != 0)); then
    failed=1
    line+=" -- FAILED (exit $code), log $work/log.txt"
    echo "fuzz: $target failed; the end of its log:" >&2
    tail -n 60 "$work/log.txt" >&2
    for artifact in "$work"/artifacts/*; do
      echo "fuzz: reproduce with: $binary ${limits[*]} $artifact" >&2
      echo "fuzz: minimise with:  $binary ${limits[*]} -minimize_crash=1 -runs=100000 $artifact" >&2
    done
  fi
  echo "$line" >"$work/summary"
  ((failed == 0)) || touch "$work/failed"
}

# The targets run side by side, up to $jobs at a time (each libFuzzer run is one process on one
# core); their messages and lines are printed afterwards in the targets' order.
running=0
for target in "${targets[@]}"; do
  work=$root/$build/fuzz/$target
  mkdir -p "$work"
  rm -f "$work/messages" "$work/summary" "$work/failed"
  echo "fuzz: $target for $seconds s"
  fuzz_one "$target" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
status=0
summary=()
for target in "${targets[@]}"; do
  work=$root/$build/fuzz/$target
  cat "$work/messages" >&2
  if [[ -f $work/summary ]]; then
    summary+=("$(cat "$work/summary")")
  else
    summary+=("$target: no summary (the run stopped early) -- FAILED")
    status=1
  fi
  [[ ! -f $work/failed ]] || status=1
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
