"""Every file format the loaders read gives the same answers as the arrays it
was written from (graphkit.generate + graphkit.write), gzip'd or not; the
shipped good inputs load."""
import pytest
from conftest import GOOD_INPUTS

np = pytest.importorskip("numpy")
gk = pytest.importorskip("graphkit")


@pytest.mark.parametrize("ext", ["el", "mtx", "gr", "gkbin", "el.gz", "mtx.gz"])
def test_written_files_match_arrays(device, tmp_path, ext):
    g = gk.generate("rmat:9", seed=3)
    weights = (np.arange(g.src.size, dtype=np.int32) % 50) + 1
    directed = gk.Edges(g.src, g.dst, weights, g.num_vertices, directed=True)
    path = tmp_path / f"g.{ext}"
    gk.write(directed, path)
    source = int(g.src[0])
    # DIMACS and Matrix Market keep every vertex 1..N: ids are the dense ids + 1 there.
    one_based = ext.split(".")[0] in ("mtx", "gr")
    from_file = gk.sssp(path, source + 1 if one_based else source, device=device)
    from_arrays = gk.sssp(directed, source, device=device)
    if from_file.size == from_arrays.size:
        np.testing.assert_array_equal(from_file, from_arrays)
    else:  # an edge list names only vertices with edges: compare by id
        ids = from_file.ids if from_file.ids is not None else np.arange(from_file.size)
        np.testing.assert_array_equal(from_file, from_arrays[ids])
    assert gk.triangles(path, device=device) == gk.triangles(directed, device=device)


@pytest.mark.parametrize("name", ["triangle.el.gz", "triangle.gr", "triangle.mtx", "triangle-v1.gkbin", "crlf.el"])
def test_good_inputs_load(device, name):
    t = gk.triangles(GOOD_INPUTS / name, device=device)
    assert int(t) >= 0 and t.timings["load"] >= 0


def test_generate_specs():
    for spec in ("rmat:6", "uniform:6:4", "grid:4x5"):
        g = gk.generate(spec)
        assert g.src.size == g.dst.size and g.num_vertices > 0
    with pytest.raises(gk.InputError):
        gk.generate("nonsense:3")
