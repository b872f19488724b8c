// Loads a graph through the installed library; prints vertices and edges.
#include <iostream>

#include "graph/build.hpp"
#include "graph/io/load.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  graphkit::coo_graph g = graphkit::load_graph(argv[1]).graph;
  const graphkit::csr_graph csr = graphkit::to_csr(std::move(g));
  std::cout << "vertices " << csr.num_vertices << " edges " << csr.num_edges() << "\n";
  return 0;
}
