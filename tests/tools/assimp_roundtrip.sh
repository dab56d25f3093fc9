#!/bin/sh
# assimp_roundtrip.sh FILE.glb OUTDIR: `assimp export FILE.glb OUTDIR/x.dae` must succeed (assimp
# 5.2 used to abort on nested extras), and `assimp info -r` of the glb and of the dae must report
# the same mesh and face counts. (Vertices are not compared: assimp's Collada reader gives every
# face corner its own vertex.) Exit 0 when both hold.
set -eu
glb=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
assimp export "$glb" "$out/x.dae" > "$out/export.log" 2>&1 || {
  cat "$out/export.log"
  echo "assimp export failed"
  exit 1
}
counts() { assimp info "$1" -r 2>&1 | grep -E '^(Meshes|Faces):' | tr -s ' '; }
counts "$glb" > "$out/glb.txt"
counts "$out/x.dae" > "$out/dae.txt"
cat "$out/glb.txt"
if ! grep -q Faces "$out/glb.txt" || ! cmp -s "$out/glb.txt" "$out/dae.txt"; then
  echo "counts differ after the round trip:"
  cat "$out/dae.txt"
  exit 1
fi
echo "assimp round trip: counts match"
