#!/usr/bin/env bash
# The one set-up script. On a fresh Debian 12 machine, as root:
#   ./setup.sh planet   install what is missing, build Release, write out/default/
#   ./setup.sh test     install what is missing, build, run the whole test suite
#   ./setup.sh packages install what is missing for `test` (and CI's sanitizer builds), only
set -euo pipefail
cd "$(dirname "$0")"

# lld: the linker CMake picks when it is there (about a third of ld.bfd's time per executable).
packages=(build-essential cmake ninja-build pkg-config git lld
  libtbb-dev libglm-dev libtinyobjloader-dev libtinygltf-dev catch2 nlohmann-json3-dev
  libstb-dev libpng-dev libtomlplusplus-dev libcli11-dev libmeshoptimizer-dev
  assimp-utils chromium)
# Only for `./setup.sh test`: .ci/sanitizers and tests/fuzz/run.sh (clang with libFuzzer and its
# sanitizer runtimes, llvm-symbolizer for file:line in reports, dpkg-source for `apt-get source`
# of oneTBB; g++ already brings the GCC ASan/UBSan/TSan runtimes).
test_packages=(clang libclang-rt-14-dev llvm dpkg-dev)

install_packages() {  # install_packages [extra package...]
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # Node.js and npm (gltf-validator, three.js, playwright-core): any install will do. A machine
  # may already carry a Node.js build that bundles npm (NodeSource), which Debian's npm package
  # conflicts with, so ask apt only when the commands are missing.
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {  # build <dir> <build type>
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE="$2" -DPLANETGEN_TESTS=ON >/dev/null
  cmake --build "$1" -j"$(nproc)"
}

case "${1:-}" in
  planet)
    install_packages
    build build Release
    npm ci --no-audit --no-fund --prefix app/viewer >/dev/null  # three.js for `planetgen view`
    ./build/planetgen generate --config configs/default.toml --out out/default
    echo "setup: wrote $(ls out/default | tr '\n' ' ')to out/default/"
    ;;
  packages)
    install_packages "${test_packages[@]}"
    ;;
  test)
    install_packages "${test_packages[@]}"
    build build Release
    ctest --test-dir build --output-on-failure -j"$(nproc)"
    ;;
  *)
    echo "usage: $0 planet|test|packages" >&2
    exit 2
    ;;
esac
