"""Shared set-up for graphkit's pytest suite: the device parameter (the GPU
cases are marked `gpu` and skipped where no CUDA device is usable), the
shipped datasets, and skips where numpy, scipy or networkx are missing."""
import os
import pathlib

import pytest

np = pytest.importorskip("numpy")
gk = pytest.importorskip("graphkit")

ROOT = pathlib.Path(os.environ.get("GRAPHKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATASETS = ROOT / "datasets"
BAD_INPUTS = ROOT / "tests" / "data" / "inputs" / "bad"
GOOD_INPUTS = ROOT / "tests" / "data" / "inputs" / "good"


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: runs on the CUDA device (skipped without one)")


_no_gpu = pytest.mark.skipif(not gk.gpu_available(), reason=f"no CUDA device: {gk.gpu_unavailable_reason()}")
DEVICES = [pytest.param("cpu", id="cpu"), pytest.param("gpu", id="gpu", marks=[pytest.mark.gpu, _no_gpu])]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture
def rng():
    """A fresh seed per run, printed so that a failure can be replayed (GRAPHKIT_TEST_SEED)."""
    seed = int(os.environ.get("GRAPHKIT_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
    print(f"GRAPHKIT_TEST_SEED={seed}")
    return np.random.default_rng(seed)


def random_edges(rng, n, m, max_weight=100, zero_weights=False):
    """m random directed edges on n vertices (duplicates and self-loops included), integer weights."""
    src = rng.integers(0, n, m, dtype=np.int64) if n else np.zeros(0, np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64) if n else np.zeros(0, np.int64)
    w = rng.integers(0 if zero_weights else 1, max_weight + 1, m, dtype=np.int64)
    return src, dst, w
