// The cleaning runs dedup times: the host clean (graph/build.hpp) and the GPU
// pipeline (graph/gpu/pipeline.hpp), both from the app's params.
#include "apps/dedup/dedup.hpp"
#include "graph/gpu/pipeline.hpp"

namespace graphkit::dedup {

namespace {

clean_options rules_of(const params& p) {
  clean_options o;
  o.symmetrize = p.symmetrize;
  o.drop_self_loops = !p.keep_self_loops;
  o.drop_duplicates = true;
  o.keep = p.keep;
  return o;
}

}  // namespace

clean_stats run_cpu(coo_graph& g, const params& p) { return clean(g, rules_of(p)); }

clean_stats run_gpu(coo_graph& g, const params& p) { return clean_on_gpu(g, rules_of(p)); }

}  // namespace graphkit::dedup
