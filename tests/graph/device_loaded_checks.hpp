// What the GPU loaders' tests hold them to: a device_loaded equal, edge for
// edge, to what the host reader (load_graph) gives for the same file.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "graph/gpu/load_gpu.hpp"
#include "graph/io/load.hpp"

namespace graphkit::test {

inline void expect_same_as_host(const std::string& path, device_loaded&& got) {
  const loaded_graph want = load_graph(path);
  coo_graph g;
  to_host(std::move(got.edges), g);
  EXPECT_EQ(want.format, got.format);
  EXPECT_EQ(want.bytes, got.bytes);
  EXPECT_EQ(want.graph.num_vertices, g.num_vertices);
  EXPECT_EQ(want.graph.directed, g.directed);
  EXPECT_TRUE(want.graph.src == g.src) << "src differs";
  EXPECT_TRUE(want.graph.dst == g.dst) << "dst differs";
  EXPECT_TRUE(want.graph.weights == g.weights) << "weights differ";
  EXPECT_TRUE(want.graph.original_ids == got.original_ids) << "original ids differ";
}

}  // namespace graphkit::test
