#!/usr/bin/env bash
# The installed package as another project sees it (ctest install_package):
#  1. installs this build into a fresh prefix,
#  2. builds tests/install/consumer against it with find_package(planetgen) and runs it: it
#     must write a .glb,
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
cmake -S "$source/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/tiny_planet" "$work/tiny.glb"
[[ $(head -c 4 "$work/tiny.glb") == glTF ]] || { echo "install: tiny.glb is not a glb" >&2; exit 1; }

"$prefix/bin/planetgen" --version | grep -q '^planetgen [0-9]*\.[0-9]*\.[0-9]*$'

# view from the installed binary: with three.js installed it serves (stopped after 5 s);
# without, it names the missing folder and the npm command (and exits 1).
mkdir -p "$work/planet" && cp "$work/tiny.glb" "$work/planet/planet.glb"
viewer=$prefix/share/planetgen/viewer
for page in "$source"/app/viewer/*.js "$source"/app/viewer/index.html; do
  [[ -f $viewer/$(basename "$page") ]] || { echo "install: $(basename "$page") not installed" >&2; exit 1; }
done
if [[ -f $viewer/node_modules/three/build/three.module.js ]]; then
  code=0
  timeout 5 "$prefix/bin/planetgen" view "$work/planet" --port 0 >"$work/view.log" 2>&1 || code=$?
  grep -q 'viewer at http://127.0.0.1:' "$work/view.log" || { cat "$work/view.log" >&2; exit 1; }
  [[ $code == 124 ]] || { echo "install: view exited with $code" >&2; exit 1; }
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
