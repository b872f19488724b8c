// --method's names: the GPU counting methods (apps/tricount/tricount.hpp) to
// text and back.
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

}  // namespace graphkit::tricount
