// The start-up check of apps/common/gpu_code.cu, in a binary built for another
// GPU than the test machine's (tests/cli/CMakeLists.txt): it must stop with
// exit 2 and say what it was built for and how to rebuild, as the apps do.
#include <iostream>

#include "apps/common/gpu_code.hpp"
#include "primitives/common/device.hpp"
#include "primitives/common/error.hpp"

int main() {
  if (graphkit::cuda_device_count() == 0) {
    std::cout << "skipped: no CUDA device (" << graphkit::cuda_unavailable_reason() << ")\n";
    return 0;
  }
  try {
    graphkit::apps::require_gpu_code_for_device();
  } catch (const graphkit::input_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;  // as guarded_main maps input_error
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
  std::cout << "this build runs on the device: the probe is meant for a GPU it was not built for\n";
  return 0;
}
