"""graphkit.sssp against networkx's single_source_dijkstra_path_length and
scipy.sparse.csgraph.dijkstra: shipped datasets, random graphs from every
input kind, sizes 0 and 1, skewed degrees, and the errors."""
import math

import pytest
from conftest import BAD_INPUTS, DATASETS, random_edges

np = pytest.importorskip("numpy")
sp = pytest.importorskip("scipy.sparse")
csgraph = pytest.importorskip("scipy.sparse.csgraph")
nx = pytest.importorskip("networkx")
gk = pytest.importorskip("graphkit")


def nx_distances(g, source, nodes):
    d = nx.single_source_dijkstra_path_length(g, source)
    return np.array([d.get(v, math.inf) for v in nodes], dtype=np.float64)


def rome_networkx():
    g = nx.DiGraph()
    for line in open(DATASETS / "rome99.gr"):
        if line.startswith("a "):
            _, u, v, w = line.split()
            u, v, w = int(u), int(v), int(w)
            if not g.has_edge(u, v) or g[u][v]["weight"] > w:
                g.add_edge(u, v, weight=w)
    return g


def test_rome99_file_matches_networkx(device):
    ref = rome_networkx()
    d = gk.sssp(DATASETS / "rome99.gr", 1, device=device, validate=True)
    assert d.shape == (3353,) and d.validation == "PASS"
    # DIMACS keeps ids 1..N: dense id i is vertex i + 1.
    assert list(d.ids[:3]) == [1, 2, 3]
    nodes = d.ids.tolist()
    np.testing.assert_array_equal(d, nx_distances(ref, 1, nodes))
    for phase in ("load", "build", "run"):
        assert d.timings[phase] >= 0


def test_rome99_networkx_graph_in(device):
    ref = rome_networkx()
    d = gk.sssp(ref, 1, device=device)
    np.testing.assert_array_equal(d, nx_distances(ref, 1, list(ref.nodes)))
    assert d.to_dict() == pytest.approx(nx.single_source_dijkstra_path_length(ref, 1))


def test_snap_ids_map_back(device):
    # CA-GrQc's ids run to 26,196 for 5,241 vertices: sources and outputs use the file's ids.
    path = DATASETS / "CA-GrQc.txt"
    src, dst = np.loadtxt(path, dtype=np.int64, comments="#", unpack=True)
    ref = nx.DiGraph()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    source = int(src[0])
    d = gk.sssp(path, source, device=device)
    assert d.ids is not None and len(d.ids) == d.size == ref.number_of_nodes()
    assert d.to_dict() == {k: float(v) for k, v in nx.single_source_dijkstra_path_length(ref, source).items()}


@pytest.mark.parametrize("n,m", [(0, 0), (1, 0), (1, 3), (2, 1), (50, 400), (2000, 30000)])
def test_random_arrays_match_scipy(device, rng, n, m):
    src, dst, w = random_edges(rng, n, m)
    if n == 0:
        with pytest.raises(gk.InputError):
            gk.sssp((src, dst, w), 0, device=device)
        return
    sources = sorted(set(rng.integers(0, n, 3).tolist()))
    d = gk.sssp(gk.Edges(src, dst, w, num_vertices=n), sources, device=device, validate=True)
    # scipy keeps the sum of duplicates; graphkit the minimum: take the minimum for scipy too.
    coo = sp.coo_matrix((w, (src, dst)), shape=(n, n))
    best = {}
    for u, v, x in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
        best[(u, v)] = min(x, best.get((u, v), x))
    if best:
        r, c, x = map(np.array, zip(*((u, v, x) for (u, v), x in best.items())))
        ref_m = sp.csr_matrix((x.astype(np.float64), (r, c)), shape=(n, n))
    else:
        ref_m = sp.csr_matrix((n, n))
    expected = csgraph.dijkstra(ref_m, directed=True, indices=sources)
    # scipy's dijkstra reads a self-loop's zero distance as 0 anyway; the source is 0 in both.
    assert d.shape == (len(sources), n)
    np.testing.assert_array_equal(d, expected)


def test_scipy_csr_direct(device, rng):
    n, m = 3000, 40000
    src, dst, w = random_edges(rng, n, m, max_weight=1000)
    mat = sp.csr_matrix((w.astype(np.float64), (src, dst)), shape=(n, n))  # duplicates summed: one weight each
    sources = rng.integers(0, n, 4).tolist()
    d = gk.sssp(mat, sources, device=device, validate=True)
    np.testing.assert_array_equal(d, csgraph.dijkstra(mat, directed=True, indices=sources))
    # int32 data and int64 indices take the other conversion paths.
    mat32 = sp.csr_matrix((mat.data.astype(np.int32), mat.indices.astype(np.int64), mat.indptr.astype(np.int64)),
                          shape=(n, n))
    np.testing.assert_array_equal(gk.sssp(mat32, sources, device=device), d)
    # Undirected: symmetrize goes through the edge build.
    und = gk.sssp(mat, sources[0], symmetrize=True, device=device)
    np.testing.assert_array_equal(und, csgraph.dijkstra(mat, directed=False, indices=sources[0]))


def test_scipy_csr_values_checked_on_every_path(device):
    # Large enough for several transfer lanes, whose shares of a converted
    # column (an odd byte count) start inside elements: the first bad value
    # is still the one named, on the GPU as on the CPU.
    n, m = 1000, 3_000_001
    rng = np.random.default_rng(3)
    indptr = np.linspace(0, m, n + 1).astype(np.int64)
    indices = rng.integers(0, n, m).astype(np.int32)
    data = rng.integers(1, 100, m).astype(np.float64)
    mat = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    np.testing.assert_array_equal(gk.sssp(mat, 0, device=device), csgraph.dijkstra(mat, directed=True, indices=0))
    mat.data[2_500_001] = 2.5
    mat.data[2_700_000] = -1.0
    with pytest.raises(gk.InputError, match=r"data\[2500001\] = 2.5: shortest paths need integer weights"):
        gk.sssp(mat, 0, device=device)
    mat.data[2_500_001] = 3.0
    mat.data[2_700_000] = 4.0
    mat.indices[1_234_567] = n  # past scipy's own check, made at construction
    with pytest.raises(gk.InputError, match=r"indices\[1234567\] = 1000: vertex ids must be integers in \[0, 1000\)"):
        gk.sssp(mat, 0, device=device)


def test_skewed_star_and_unreachable(device):
    # A hub with 10^4 spokes, a chain, and an island that nothing reaches.
    n = 10_003
    src = np.concatenate([np.zeros(10_000, np.uint32), np.array([1, 2], np.uint32)])
    dst = np.concatenate([np.arange(1, 10_001, dtype=np.uint32), np.array([2, 10_001], np.uint32)])
    w = np.concatenate([np.full(10_000, 7, np.int32), np.array([0, 5], np.int32)])
    d = gk.sssp(gk.Edges(src, dst, w, num_vertices=n), 0, device=device, validate=True)
    assert d[0] == 0 and d[1] == 7 and d[2] == 7 and d[10_001] == 12
    assert math.isinf(d[10_002]) and d.dtype == np.float64


def test_unweighted_and_random_weights(device, rng):
    n, m = 500, 3000
    src, dst, _ = random_edges(rng, n, m)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    d = gk.sssp((src.astype(np.uint32), dst.astype(np.uint32)), 0, device=device)
    np.testing.assert_array_equal(d, nx_distances(g, 0, range(n)))
    r = gk.sssp((src, dst), 0, random_weights=True, seed=5, device=device, validate=True)
    assert r.validation == "PASS" and np.all(r[np.isfinite(r)] >= 0)


def test_random_sources_are_seeded(device):
    a = gk.sssp(DATASETS / "rome99.gr", sources=3, seed=7, device=device)
    b = gk.sssp(DATASETS / "rome99.gr", sources=3, seed=7, device=device)
    assert a.shape == (3, 3353) and list(a.sources) == list(b.sources)
    np.testing.assert_array_equal(a, b)
    assert len(a.run_seconds) == 3


def test_float_weights_must_be_integers():
    with pytest.raises(gk.InputError, match=r"weights\[1\] = 2.5"):
        gk.sssp(([0, 1], [1, 2], np.array([1.0, 2.5])), 0, device="cpu")
    d = gk.sssp(([0, 1], [1, 2], np.array([1.0, 2.0])), 0, device="cpu")
    np.testing.assert_array_equal(d, [0, 1, 3])


def test_input_errors():
    with pytest.raises(gk.InputError, match=r"negative-weight\.gr:4: negative weight -4"):
        gk.sssp(BAD_INPUTS / "negative-weight.gr", 1, device="cpu")
    with pytest.raises(gk.InputError, match=r"weights\[0\] = -1"):
        gk.sssp(([0], [1], [-1]), 0, device="cpu")
    with pytest.raises(gk.InputError, match=r"src\[1\] = 5: vertex ids must be integers in \[0, 3\)"):
        gk.sssp(gk.Edges([0, 5], [1, 2], num_vertices=3), 0, device="cpu")
    with pytest.raises(gk.InputError, match=r"src\[0\] = -1"):
        gk.sssp(gk.Edges([-1], [1], num_vertices=3), 0, device="cpu")
    with pytest.raises(gk.InputError, match="vertex 99 is not in the graph"):
        gk.sssp(([0], [1]), 99, device="cpu")
    with pytest.raises(gk.InputError, match="no-such-file"):
        gk.sssp("no-such-file.el", 0, device="cpu")
    with pytest.raises(gk.InputError, match="square"):
        gk.sssp(sp.csr_matrix((2, 3)), 0, device="cpu")
    with pytest.raises(TypeError):
        gk.sssp(42, 0)
    assert issubclass(gk.InputError, ValueError)


@pytest.mark.parametrize("name,line", [("nonnumeric.el", 4), ("truncated.mtx", 2), ("node-beyond-n.gr", 3)])
def test_bad_files_name_file_and_line(name, line):
    with pytest.raises(gk.InputError, match=rf"{name}:{line}: "):
        gk.sssp(BAD_INPUTS / name, 1, device="cpu")


def test_delta_only_on_gpu():
    with pytest.raises(gk.InputError, match="delta"):
        gk.sssp(DATASETS / "rome99.gr", 1, device="cpu", delta="auto")


@pytest.mark.gpu
@pytest.mark.skipif(not gk.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("delta", ["auto", 1, 1000])
def test_gpu_delta_choices(delta):
    d = gk.sssp(DATASETS / "rome99.gr", [1, 100], device="gpu", delta=delta, validate=True)
    assert d.validation == "PASS" and d.metrics["device"].startswith("gpu")
