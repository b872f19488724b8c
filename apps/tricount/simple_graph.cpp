// What "an undirected simple graph" means for tricount, written once: the
// app's build, the tests and the bench all clean their input with these rules.
#include <utility>

#include "apps/tricount/tricount.hpp"
#include "graph/build.hpp"

namespace graphkit::tricount {

clean_options simple_undirected_rules() {
  clean_options rules;
  rules.symmetrize = true;
  rules.drop_self_loops = true;
  rules.drop_duplicates = true;
  return rules;
}

csr_graph simple_undirected(coo_graph g) {
  (void)clean(g, simple_undirected_rules());
  return to_csr(std::move(g));
}

}  // namespace graphkit::tricount
