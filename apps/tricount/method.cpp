// --method's and --walk's names: the GPU counting methods and walks
// (apps/tricount/tricount.hpp) to text and back.
#include <string>

#include "apps/tricount/tricount.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::tricount {

method parse_method(const std::string& name) {
  for (const method m : {method::automatic, method::merge, method::hash, method::bitmap})
    if (name == method_name(m)) return m;
  throw input_error("--method '" + name + "': expected auto, merge, hash or bitmap");
}

const char* method_name(method m) {
  switch (m) {
    case method::automatic: return "auto";
    case method::merge: return "merge";
    case method::hash: return "hash";
    case method::bitmap: return "bitmap";
  }
  return "?";
}

walk parse_walk(const std::string& name) {
  for (const walk w : {walk::out_lists, walk::shorter_side})
    if (name == walk_name(w)) return w;
  throw input_error("--walk '" + name + "': expected out-lists or shorter-side");
}

const char* walk_name(walk w) {
  switch (w) {
    case walk::out_lists: return "out-lists";
    case walk::shorter_side: return "shorter-side";
  }
  return "?";
}

}  // namespace graphkit::tricount
