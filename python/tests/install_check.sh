#!/bin/sh
# ctest python.install: `cmake --install` into a fresh prefix, then the
# installed package (and nothing from the build tree) counts karate's triangles.
# Arguments: build dir, prefix, package folder relative to it, python, datasets dir.
set -eu
build=$1 prefix=$2 rel=$3 python=$4 datasets=$5
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
PYTHONPATH="$prefix/$rel" "$python" -c '
import sys, graphkit
assert graphkit.__file__.startswith(sys.argv[1]), graphkit.__file__
assert graphkit.triangles(sys.argv[2], device="cpu") == 45
print("installed graphkit OK:", graphkit.__file__)' "$prefix" "$datasets/karate.mtx"
