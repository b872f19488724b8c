"""graphkit from Python: GPU shortest paths, triangle counts and edge-list dedup.

Every call takes a graph as one of:

* a file path (str or os.PathLike) in any format the command lines read
  (SNAP/whitespace edge list, Matrix Market, DIMACS .gr, .gkbin, gzip'd or not);
  a bad file raises InputError naming the file and line;
* a tuple ``(src, dst)`` or ``(src, dst, weights)`` of numpy arrays (or an
  ``Edges``, which also carries the vertex count and directedness), vertex ids
  in [0, n);
* a ``scipy.sparse`` matrix (entry [i, j] is the edge i -> j, its value the weight);
* a ``networkx`` graph (edge attribute ``weight``, default 1; node ids are
  mapped back on output).

Arrays are read in place where their layout already fits: 1-D contiguous
int32/uint32 ids, int32 weights, int64 CSR offsets; on the GPU they go from
numpy's memory straight to the device (the CPU path, the Boost.Graph oracles,
builds its own host graph from them). Other dtypes (int64 ids, float weights,
int32 offsets) are converted, which copies them once on the host; float
weights must hold integers (graphkit's weights are 32-bit integers). Weights
must be non-negative for shortest paths.

``device`` is ``None`` (the GPU where one exists, else the CPU), ``"gpu"`` or
``"cpu"`` (the Boost.Graph oracles), as ``--device`` on the command line;
``validate=True`` checks the result against an independent CPU oracle and
raises ValidationError on a mismatch. Results carry ``timings`` (seconds per
phase: load, build, upload, run, ...) and ``metrics``.

The GIL is released while graphkit loads, builds and solves; Ctrl-C is
honoured between phases and between sources (a single GPU solve runs to its
end first) and raises KeyboardInterrupt.
"""

import os as _os

import numpy as _np

from . import _graphkit
from ._graphkit import InputError, InternalError, ResourceError, gpu_available, gpu_unavailable_reason

for _error in (InputError, InternalError, ResourceError):
    _error.__module__ = __name__

__all__ = [
    "Edges", "sssp", "triangles", "dedup", "generate", "write", "Distances", "Triangles", "Dedup",
    "InputError", "ResourceError", "InternalError", "ValidationError", "gpu_available", "gpu_unavailable_reason",
]


class ValidationError(AssertionError):
    """validate=True found a difference with the CPU oracle; ``result`` holds what graphkit computed."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class Edges:
    """Edge arrays with the vertex count (default: largest id + 1) and directedness."""

    def __init__(self, src, dst, weights=None, num_vertices=None, directed=True):
        self.src = _column(src, "src")
        self.dst = _column(dst, "dst")
        self.weights = None if weights is None else _column(weights, "weights")
        if num_vertices is None:
            num_vertices = 0 if self.src.size == 0 else int(max(self.src.max(), self.dst.max())) + 1
        self.num_vertices = int(num_vertices)
        self.directed = bool(directed)


def generate(spec, seed=1):
    """A generated graph as Edges: "rmat:SCALE[:EF]", "uniform:SCALE[:EF]", "grid:ROWSxCOLS" or "grid:SCALE",
    the same graphs as the command lines' --gen (on the host)."""
    out = _graphkit.generate(spec, int(seed))
    return Edges(out["src"], out["dst"], out["weights"], out["num_vertices"], out["directed"])


def write(edges, path, format=None):
    """Writes edge arrays (an Edges or a (src, dst[, weights]) tuple) to a graph file: its extension (.el, .mtx,
    .gr, .gkbin, + .gz) or `format` picks the format. Undirected Edges write each edge once."""
    if isinstance(edges, tuple):
        edges = Edges(*edges)
    if not isinstance(edges, Edges):
        raise TypeError("graphkit.write takes an Edges or a (src, dst[, weights]) tuple")
    native = _graphkit.Input.edges(edges.num_vertices, edges.src, edges.dst, edges.weights, edges.directed)
    _graphkit.write(native, _os.fsdecode(path), format or "")


def _column(a, name):
    a = _np.asarray(a)
    if a.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array, got shape {a.shape}")
    return _np.ascontiguousarray(a)  # a copy only where it was not contiguous


class _Prepared:
    """A graph argument as the extension takes it, and how to name its vertices on output."""

    def __init__(self, native, nodes=None):
        self.native = native
        self.nodes = nodes  # networkx node list (dense id -> node), or None

    def ids(self, returned):
        if self.nodes is not None:
            return self.nodes
        return returned


def _is_networkx(g):
    mod = type(g).__module__ or ""
    return mod.startswith("networkx.")


def _is_sparse(g):
    mod = type(g).__module__ or ""
    return mod.startswith("scipy.sparse")


def _prepare(g, csr_ok=False, keep_weights=True):
    if isinstance(g, (str, bytes, _os.PathLike)):
        return _Prepared(_graphkit.Input.file(_os.fsdecode(g)))
    if isinstance(g, tuple) and len(g) in (2, 3):
        g = Edges(*g)
    if isinstance(g, Edges):
        return _Prepared(_graphkit.Input.edges(g.num_vertices, g.src, g.dst, g.weights if keep_weights else None,
                                               g.directed))
    if _is_sparse(g):
        n, m = g.shape
        if n != m:
            raise InputError(f"a graph's matrix must be square, got shape {g.shape}")
        weights = None if g.dtype == _np.bool_ or not keep_weights else True
        if csr_ok:
            csr = g.tocsr()  # no copy for a CSR matrix
            return _Prepared(_graphkit.Input.csr(n, _column(csr.indptr, "indptr"), _column(csr.indices, "indices"),
                                                 _column(csr.data, "data") if weights else None))
        coo = g.tocoo()
        return _Prepared(_graphkit.Input.edges(n, _column(coo.row, "row"), _column(coo.col, "col"),
                                               _column(coo.data, "data") if weights else None, True))
    if _is_networkx(g):
        return _from_networkx(g, keep_weights)
    raise TypeError("graphkit takes a file path, (src, dst[, weights]) arrays, graphkit.Edges, "
                    f"a scipy.sparse matrix or a networkx graph, not {type(g).__name__}")


def _from_networkx(g, keep_weights):
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    m = g.number_of_edges()
    src = _np.fromiter((index[u] for u, _ in g.edges()), dtype=_np.uint32, count=m)
    dst = _np.fromiter((index[v] for _, v in g.edges()), dtype=_np.uint32, count=m)
    weights = None
    if keep_weights and any("weight" in d for _, _, d in g.edges(data=True)):
        weights = _np.fromiter((d.get("weight", 1) for _, _, d in g.edges(data=True)), dtype=_np.float64, count=m)
    return _Prepared(_graphkit.Input.edges(len(nodes), src, dst, weights, g.is_directed()), nodes)


def _device(device):
    if device is None:
        return ""
    if device not in ("cpu", "gpu"):
        raise InputError(f"device={device!r}: expected None, 'cpu' or 'gpu'")
    return device


def _check(result, out, what):
    v = out["validation"]
    result.validation = None if v is None else ("PASS" if v["mismatches"] == 0 else f"FAIL ({v['mismatches']} mismatches)")
    if v is not None and v["mismatches"]:
        raise ValidationError(f"{what}: validation FAIL ({v['mismatches']} mismatches): " + "; ".join(v["first"]), result)
    return result


class Distances(_np.ndarray):
    """Distances as float64 (inf where unreachable): shape (n,) for one source,
    (sources, n) for several. Index i is the graph's dense vertex i; ``ids[i]``
    is its id in the input (file id or networkx node), ``sources`` the dense
    source ids. ``timings``: seconds per phase ("run" sums the sources'
    solves, ``run_seconds`` has each); ``metrics``: the report's figures."""

    def __array_finalize__(self, obj):
        for name in ("ids", "sources", "timings", "metrics", "run_seconds", "validation", "warnings"):
            setattr(self, name, getattr(obj, name, None))

    def to_dict(self, row=0):
        """{original id or node: distance} for the vertices reached from source `row`."""
        d = _np.asarray(self) if self.ndim == 1 else _np.asarray(self)[row]
        ids = self.ids if self.ids is not None else range(d.size)
        reached = _np.flatnonzero(_np.isfinite(d))
        return {ids[i] if not isinstance(ids, _np.ndarray) else ids[i].item(): d[i].item() for i in reached}


def sssp(g, source=None, *, sources=None, symmetrize=False, random_weights=False, seed=1, device=None,
         validate=False, delta=None):
    """Shortest-path distances from `source` (an id as the input spells it: file id, array index or networkx
    node), or from each of `source` when it is a list, or from `sources` random vertices with edges (seeded).

    Returns a Distances array. symmetrize takes every edge as undirected; random_weights replaces the weights
    by integers in [1, 255] drawn from seed; delta ("auto" or an integer) fixes the GPU's bucket width."""
    single = source is not None and not isinstance(source, (list, tuple, _np.ndarray))
    if source is None and sources is None:
        raise InputError("give a source, a list of sources, or sources=N random ones")
    if source is not None and sources is not None:
        raise InputError("give either source or sources=N, not both")
    prep = _prepare(g, csr_ok=not symmetrize and not random_weights)
    wanted = [] if source is None else ([source] if single else list(source))
    if prep.nodes is not None:
        index = {v: i for i, v in enumerate(prep.nodes)}
        missing = [s for s in wanted if s not in index]
        if missing:
            raise InputError(f"vertex {missing[0]!r} is not in the graph")
        wanted = [index[s] for s in wanted]
    wanted = [int(s) for s in wanted]
    if any(s < 0 for s in wanted):
        raise InputError(f"vertex {min(wanted)} is not in the graph")
    out = _graphkit.sssp(prep.native, wanted, int(sources or 0), symmetrize, random_weights, int(seed),
                         _device(device), validate, "" if delta is None else str(delta))
    dist = out["distances"]
    result = (dist[0] if single else dist).view(Distances)
    result.ids = prep.ids(out["ids"])
    result.sources = out["sources"]
    result.timings = out["timings"]
    result.metrics = out["metrics"]
    result.run_seconds = out["run_seconds"]
    result.warnings = out["warnings"]
    return _check(result, out, "sssp")


class Triangles(int):
    """The triangle count (an int), with ``per_vertex`` (uint64 array or None), ``ids``, ``timings``, ``metrics``."""

    def to_dict(self):
        """{original id or node: triangles through it} (needs per_vertex=True)."""
        return _per_vertex_dict(self)


def triangles(g, per_vertex=False, *, method="auto", device=None, validate=False):
    """Triangles of the graph taken as undirected (symmetrized, self-loops and duplicates dropped, weights
    ignored). per_vertex=True also counts those through each vertex (result.per_vertex, or
    result.to_dict()). method: "auto", "merge", "hash" or "bitmap" (GPU intersections)."""
    prep = _prepare(g, keep_weights=False)
    out = _graphkit.triangles(prep.native, per_vertex, method, False, 1, _device(device), validate)
    result = Triangles(out["triangles"])
    result.per_vertex = out["per_vertex"]
    result.ids = prep.ids(out["ids"])
    result.timings = out["timings"]
    result.metrics = out["metrics"]
    result.warnings = out["warnings"]
    return _check(result, out, "triangles")


def _per_vertex_dict(result):
    if result.per_vertex is None:
        raise InputError("per-vertex counts need triangles(g, per_vertex=True)")
    ids = result.ids if result.ids is not None else range(result.per_vertex.size)
    return {(ids[i].item() if isinstance(ids, _np.ndarray) else ids[i]): int(c) for i, c in enumerate(result.per_vertex)}


class Dedup:
    """The cleaned edge list: ``src``, ``dst`` (dense ids, sorted by (src, dst)), ``weights`` (or None),
    ``num_vertices``, ``ids`` (original id of each dense id, or None for the identity), the removal counts,
    ``timings`` and ``metrics``."""

    def __init__(self, out, ids):
        for k in ("src", "dst", "weights", "num_vertices", "directed", "duplicates_removed", "self_loops_removed",
                  "timings", "metrics", "warnings"):
            setattr(self, k, out[k])
        self.ids = ids
        self.validation = None


def dedup(g, output=None, *, out_format=None, symmetrize=False, keep_self_loops=False, weights="min",
          relabel="sorted", random_weights=False, seed=1, device=None, validate=False):
    """Cleans an edge list as the dedup command line does: drops self-loops (unless keep_self_loops), merges
    duplicate edges keeping the `weights` ("min", "first", "sum") weight. A file's ids are compacted
    (relabel: "sorted" or "first-seen"); array ids stay as they are. Writes `output` too when given (its
    extension, or out_format, picks the format). Returns a Dedup."""
    prep = _prepare(g)
    out = _graphkit.dedup(prep.native, "" if output is None else _os.fsdecode(output), out_format or "", symmetrize,
                          keep_self_loops, weights, relabel, random_weights, int(seed), _device(device), validate)
    return _check(Dedup(out, prep.ids(out["ids"])), out, "dedup")
