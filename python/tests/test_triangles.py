"""graphkit.triangles against networkx's triangles (and the shipped datasets'
published counts): files, arrays, scipy matrices, networkx graphs, per vertex
with ids mapped back."""
import pytest
from conftest import DATASETS, random_edges

np = pytest.importorskip("numpy")
sp = pytest.importorskip("scipy.sparse")
nx = pytest.importorskip("networkx")
gk = pytest.importorskip("graphkit")

PUBLISHED = {"karate.mtx": 45, "jagmesh7.mtx": 2016, "CA-GrQc.txt": 48260, "p2p-Gnutella04.txt": 934}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_datasets_published_counts(device, name):
    t = gk.triangles(DATASETS / name, device=device, validate=True)
    assert t == PUBLISHED[name] and t.validation == "PASS"
    assert "load" in t.timings and "build" in t.timings


def test_per_vertex_matches_networkx_with_file_ids(device):
    path = DATASETS / "CA-GrQc.txt"
    src, dst = np.loadtxt(path, dtype=np.int64, comments="#", unpack=True)
    ref = nx.Graph()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    ref.remove_edges_from(nx.selfloop_edges(ref))
    t = gk.triangles(path, per_vertex=True, device=device)
    assert t.to_dict() == nx.triangles(ref)
    assert int(t.per_vertex.sum()) == 3 * int(t)


@pytest.mark.parametrize("n,m", [(0, 0), (1, 0), (1, 2), (3, 3), (60, 600), (3000, 40000)])
def test_random_graphs_every_input_kind(device, rng, n, m):
    src, dst, _ = random_edges(rng, n, m)
    ref = nx.Graph()
    ref.add_nodes_from(range(n))
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    ref.remove_edges_from(nx.selfloop_edges(ref))
    expected = nx.triangles(ref)
    total = sum(expected.values()) // 3
    arrays = gk.triangles(gk.Edges(src, dst, num_vertices=n), per_vertex=True, device=device, validate=True)
    assert arrays == total and arrays.per_vertex.tolist() == [expected[v] for v in range(n)]
    matrix = sp.coo_matrix((np.ones(m), (src, dst)), shape=(n, n)).tocsr()
    assert gk.triangles(matrix, device=device) == total
    graph = gk.triangles(ref, per_vertex=True, device=device)
    assert graph == total and graph.to_dict() == expected


def test_skewed_hub(device):
    # A hub joined to every vertex of a path: one triangle per path edge.
    n = 20_000
    path_src = np.arange(1, n - 1, dtype=np.uint32)
    src = np.concatenate([np.zeros(n - 1, np.uint32), path_src])
    dst = np.concatenate([np.arange(1, n, dtype=np.uint32), path_src + 1])
    t = gk.triangles((src, dst), per_vertex=True, device=device, validate=True)
    assert t == n - 2 and t.per_vertex[0] == n - 2


def test_method_only_on_gpu():
    with pytest.raises(gk.InputError, match="method"):
        gk.triangles(DATASETS / "karate.mtx", method="hash", device="cpu")


@pytest.mark.gpu
@pytest.mark.skipif(not gk.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("method", ["merge", "hash", "bitmap"])
def test_gpu_methods(method):
    t = gk.triangles(DATASETS / "CA-GrQc.txt", per_vertex=True, method=method, device="gpu", validate=True)
    assert t == 48260 and t.validation == "PASS"
