// Edge-list deduplication: raw edge lists in, clean edge lists out. The CPU
// path is graph::clean(); the GPU path is graph/gpu/pipeline.hpp's
// clean_on_gpu (hash table + sort), which must produce the same edges.
#pragma once

#include "apps/common/report.hpp"
#include "graph/build.hpp"
#include "graph/coo.hpp"

namespace graphkit::dedup {

struct params {
  bool symmetrize = false;
  bool keep_self_loops = false;
  duplicate_weight keep = duplicate_weight::min;
};

/// The CPU path: graph::clean with duplicates dropped. Output sorted by (src, dst).
clean_stats run_cpu(coo_graph& g, const params& p);

/// The GPU path: clean_on_gpu with the same rules.
clean_stats run_gpu(coo_graph& g, const params& p);

/// The oracle: tuples sorted with std::sort, grouped with a plain scan.
coo_graph run_reference(const coo_graph& input, const params& p);

/// Compares edge by edge (both sorted by (src, dst)); names original ids.
apps::verification verify(const coo_graph& expected, const coo_graph& actual);

}  // namespace graphkit::dedup
