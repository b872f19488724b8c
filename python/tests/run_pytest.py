"""Runs the pytest suite for ctest. Exits 77, which ctest counts as skipped,
where pytest or numpy is missing, and for the GPU selection (`--gpu`) where no
CUDA device is usable, so that a bare machine reports a skip, not a pass."""
import sys


def main(argv):
    gpu = "--gpu" in argv
    args = [a for a in argv if a != "--gpu"]
    try:
        import numpy  # noqa: F401
        import pytest
    except ImportError as e:
        print(f"python tests skipped: {e} (scripts/setup installs Debian's python3-numpy, -scipy, -networkx, -pytest)")
        return 77
    if gpu:
        import graphkit
        if not graphkit.gpu_available():
            print(f"python GPU tests skipped: {graphkit.gpu_unavailable_reason()}")
            return 77
    code = pytest.main(["-q", "-p", "no:cacheprovider", "-m", "gpu" if gpu else "not gpu", *args])
    return 77 if code == pytest.ExitCode.NO_TESTS_COLLECTED else int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
