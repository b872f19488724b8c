#!/usr/bin/env python3
"""graphkit from Python in a few lines: shortest paths and triangles from a
file, a scipy matrix and a networkx graph. Run from the repository root:

    PYTHONPATH=build/python python3 python/examples/shortest_paths.py
"""
import networkx as nx
import numpy as np
import scipy.sparse as sp

import graphkit

# A file, in any format the command lines read; sources are the file's own ids.
d = graphkit.sssp("datasets/rome99.gr", 1, validate=True)
print(f"rome99 from vertex 1: farthest {d.max():.0f} at vertex {d.ids[d.argmax()]},"
      f" validation {d.validation}, phases {', '.join(f'{k} {v * 1e3:.1f} ms' for k, v in d.timings.items())}")

# Several sources in one call: one row each.
rows = graphkit.sssp("datasets/rome99.gr", [1, 100, 1000])
print("three sources:", rows.shape, "mean distances", rows.mean(axis=1).round(0))

# A scipy CSR matrix: entry [i, j] is the edge i -> j and its weight (integers).
m = sp.csr_matrix((np.array([4.0, 1.0, 2.0]), (np.array([0, 0, 2]), np.array([1, 2, 1]))), shape=(4, 4))
print("scipy matrix from 0:", graphkit.sssp(m, 0))  # [0, 3, 1, inf]: vertex 3 is unreachable

# A networkx graph: nodes come back by name.
g = nx.karate_club_graph()
t = graphkit.triangles(g, per_vertex=True)
print(f"karate club: {int(t)} triangles, {t.to_dict()[0]} through node 0 (networkx says {nx.triangles(g, 0)})")
