#!/usr/bin/env bash
# The installed package as another project sees it (ctest install_package):
#  1. installs this build into a fresh prefix; no installed header includes a third-party
#     header but glm's (nlohmann, toml++, CLI11, oneTBB, cpp-httplib, stb, libpng), and each
#     compiles on its own against the prefix;
#  2. builds examples/ against it with find_package(planetgen) and runs the README's program
#     (examples/planet_from_code.cpp, which README.md quotes whole): its planet must have the
#     elevation hash of `planetgen generate`'s default planet, and its files must be there;
#     then examples/tile_stream.cpp loads the planet file it saved and streams tiles from orbit
#     down to 2 m (a line per camera height, the last on a level of at most 2 m spacing);
#  3. runs the installed planetgen: --version, and `view`, which finds the viewer (every page
#     and script of app/viewer) in share/planetgen/viewer beside bin/ and, with three.js
#     removed, says so.
# Usage: tests/install/run.sh <build dir> <work dir>
set -euo pipefail
build=$1
work=$2
source=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
include=$prefix/include/planetgen
if grep -rnE '#include *[<"](nlohmann|toml|CLI/|tbb/|oneapi/|httplib|stb_|png\.h)' "$include"; then
  echo "install: an installed header includes a third-party header (above)" >&2
  exit 1
fi
headers=0
while IFS= read -r header; do
  echo "#include \"${header#"$include"/}\"" |
    g++ -std=c++20 -fsyntax-only -x c++ -I "$include" -I /usr/include - ||
    { echo "install: $header does not compile on its own" >&2; exit 1; }
  headers=$((headers + 1))
done < <(find "$include" -name '*.h' | sort)
((headers > 20)) || { echo "install: only $headers headers installed" >&2; exit 1; }
[[ ! -e $include/planet/pipeline.h && ! -e $include/io && ! -e $include/app ]] ||
  { echo "install: internal headers were installed" >&2; exit 1; }

cmake -S "$source/examples" -B "$work/examples" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/examples" >/dev/null
"$work/examples/planet_from_code" "$work/from_code" >"$work/from_code.log"
"$prefix/bin/planetgen" generate --out "$work/cli" --quiet
want=$(sed -n 's/.*"elevation_hash": "\([0-9a-f]*\)".*/\1/p' "$work/cli/summary.json")
got=$(sed -n 's/^elevation hash \([0-9a-f]*\)$/\1/p' "$work/from_code.log")
[[ -n $want && $got == "$want" ]] ||
  { echo "install: library planet $got, planetgen generate $want" >&2; exit 1; }
for file in planet.glb summary.json relief.png; do
  [[ -s $work/from_code/$file ]] || { echo "install: the example wrote no $file" >&2; exit 1; }
done
[[ -s $work/from_code.planet ]] || { echo "install: the example saved no planet file" >&2; exit 1; }
# The streaming example loads that planet and descends from orbit to 2 m: one line per camera
# height, the last at 2 m on a level of at most 2 m spacing.
"$work/examples/tile_stream" "$work/from_code.planet" >"$work/tile_stream.log"
[[ $(grep -c '^camera ' "$work/tile_stream.log") == 8 ]] &&
  awk '/^camera +2 m:/ { for (i = 1; i < NF; ++i) if ($i == "spacing") s = $(i + 1) + 0; found = (s > 0 && s <= 2.0) }
       END { exit !found }' "$work/tile_stream.log" ||
  { echo "install: tile_stream did not reach the ground:" >&2; cat "$work/tile_stream.log" >&2; exit 1; }
# README.md quotes the example whole.
awk '/^```cpp$/{on=1;next} /^```$/{on=0} on' "$source/README.md" >"$work/readme_code.cpp"
python3 - "$source/examples/planet_from_code.cpp" "$work/readme_code.cpp" <<'PY' ||
import sys
example = open(sys.argv[1]).read()
sys.exit(0 if example in open(sys.argv[2]).read() else 1)
PY
  { echo "install: README.md does not quote examples/planet_from_code.cpp whole" >&2; exit 1; }

"$prefix/bin/planetgen" --version | grep -q '^planetgen [0-9]*\.[0-9]*\.[0-9]*$'

# view from the installed binary: with three.js installed it serves (stopped once it says where,
# at most 60 s on; still running then); without, it names the missing folder and the npm command
# (and exits 1).
mkdir -p "$work/planet" && cp "$work/from_code/planet.glb" "$work/planet/planet.glb"
viewer=$prefix/share/planetgen/viewer
for page in "$source"/app/viewer/*.js "$source"/app/viewer/*.html; do
  [[ -f $viewer/$(basename "$page") ]] || { echo "install: $(basename "$page") not installed" >&2; exit 1; }
done
if [[ -f $viewer/node_modules/three/build/three.module.js ]]; then
  "$prefix/bin/planetgen" view "$work/planet" --port 0 >"$work/view.log" 2>&1 &
  view=$!
  for ((i = 0; i < 600; ++i)); do
    grep -q 'viewer at http://127.0.0.1:' "$work/view.log" && break
    kill -0 "$view" 2>/dev/null || break
    sleep 0.1
  done
  serving=0
  kill -0 "$view" 2>/dev/null && serving=1
  kill "$view" 2>/dev/null || true
  code=0
  wait "$view" || code=$?
  grep -q 'viewer at http://127.0.0.1:' "$work/view.log" || { cat "$work/view.log" >&2; exit 1; }
  ((serving)) || { echo "install: view exited with $code instead of serving" >&2; exit 1; }
  rm -rf "$viewer/node_modules"
fi
code=0
"$prefix/bin/planetgen" view "$work/planet" --port 0 >"$work/view.log" 2>&1 || code=$?
if [[ $code != 1 ]] || ! grep -q "no three.js.*npm ci --prefix $viewer" "$work/view.log"; then
  echo "install: view without three.js (exit $code):" >&2
  cat "$work/view.log" >&2
  exit 1
fi
echo "install: ok ($prefix)"
