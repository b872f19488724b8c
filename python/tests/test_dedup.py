"""graphkit.dedup against numpy's own sort-and-unique."""
import pytest
from conftest import DATASETS, random_edges

np = pytest.importorskip("numpy")
gk = pytest.importorskip("graphkit")


def expected_edges(src, dst, w, keep, keep_self_loops=False, symmetrize=False):
    if symmetrize:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    if not keep_self_loops:
        mask = src != dst
        src, dst, w = src[mask], dst[mask], w[mask]
    best = {}
    for i, (u, v, x) in enumerate(zip(src.tolist(), dst.tolist(), w.tolist())):
        if (u, v) not in best:
            best[(u, v)] = x
        elif keep == "min":
            best[(u, v)] = min(best[(u, v)], x)
        elif keep == "sum":
            best[(u, v)] += x
    keys = sorted(best)
    return [k[0] for k in keys], [k[1] for k in keys], [best[k] for k in keys]


@pytest.mark.parametrize("keep", ["min", "first", "sum"])
@pytest.mark.parametrize("n,m", [(1, 0), (1, 4), (40, 500), (5000, 60000)])
def test_random_edges(device, rng, keep, n, m):
    src, dst, w = random_edges(rng, n, m)
    out = gk.dedup(gk.Edges(src, dst, w, num_vertices=n), weights=keep, device=device, validate=True)
    es, ed, ew = expected_edges(src, dst, w, keep)
    assert out.src.tolist() == es and out.dst.tolist() == ed and out.weights.tolist() == ew
    assert out.duplicates_removed + out.self_loops_removed + len(es) == m


def test_symmetrize_and_self_loops(device, rng):
    src, dst, w = random_edges(rng, 30, 400)
    out = gk.dedup((src, dst, w), symmetrize=True, keep_self_loops=True, device=device)
    es, ed, ew = expected_edges(src, dst, w, "min", keep_self_loops=True, symmetrize=True)
    assert out.src.tolist() == es and out.dst.tolist() == ed and out.weights.tolist() == ew


def test_file_in_file_out(device, tmp_path):
    out_path = tmp_path / "grqc.el"
    out = gk.dedup(DATASETS / "CA-GrQc.txt", out_path, device=device, validate=True)
    assert out.ids is not None and out.num_vertices == 5241 and len(out.ids) == 5241
    assert out.self_loops_removed == 11 and out_path.exists()
    again = gk.dedup(out_path, device="cpu")
    assert again.duplicates_removed == 0 and again.src.size == out.src.size
