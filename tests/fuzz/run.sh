#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan in build-fuzz/ and runs each one for
# [seconds] (default 60) on a working copy of its seed corpus (build-fuzz/fuzz/<target>/corpus;
# inputs found by earlier runs stay there). Fails if any target finds a crash, a leak, a
# sanitizer report, an input slower than 10 s or one needing more than 4 GB; the input is then
# in build-fuzz/fuzz/<target>/artifacts/ and the command to reproduce it is printed.
# Needs clang, libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) and llvm
# (llvm-symbolizer, for file:line in the stacks). FUZZ_CXX picks another clang++.
# Usage: tests/fuzz/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:-60}
jobs=${JOBS:-$(nproc)}
build=build-fuzz
targets=(config heightmap)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" -DPLANETGEN_TESTS=OFF -DPLANETGEN_FUZZ=ON \
  -DPLANETGEN_SANITIZE=address,undefined >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]/%/_fuzz}"

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
summary=()
for target in "${targets[@]}"; do
  work=$root/$build/fuzz/$target
  mkdir -p "$work/corpus" "$work/artifacts"
  cp "tests/fuzz/corpus/$target"/* "$work/corpus/"
  if [[ $target == config ]]; then cp configs/*.toml "$work/corpus/"; fi  # as shipped now
  binary=$root/$build/tests/fuzz/${target}_fuzz
  echo "fuzz: $target for $seconds s"
  code=0
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -dict="tests/fuzz/$target.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" >"$work/log.txt" 2>&1 || code=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log.txt" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$work/log.txt" | tail -1 || true)
  line="$target: ${runs:-?} runs, ${rate:-?} exec/s, ${cov:-no coverage line}"
  if ((code != 0)); then
    status=1
    line+=" -- FAILED (exit $code), log $work/log.txt"
    echo "fuzz: $target failed; the end of its log:" >&2
    tail -n 60 "$work/log.txt" >&2
    for artifact in "$work"/artifacts/*; do
      [[ -e $artifact ]] || continue
      echo "fuzz: reproduce with: $binary $artifact" >&2
      echo "fuzz: minimise with:  $binary -minimize_crash=1 -runs=100000 $artifact" >&2
    done
  fi
  summary+=("$line")
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
