#!/bin/sh
# ctest's python.* runs: runs "$@" under the interpreter named first, or under
# $GRAPHKIT_PYTEST_PYTHON where set (a GPU host whose python3 the module was
# built for); exits 77, ctest's skip, where that interpreter is missing.
py=${GRAPHKIT_PYTEST_PYTHON:-$1}
shift
command -v "$py" >/dev/null 2>&1 || { echo "python tests skipped: no interpreter $py"; exit 77; }
exec "$py" "$@"
