#include "apps/common/gpu_code.hpp"

#include <cuda_runtime_api.h>

#include "primitives/common/error.hpp"

// Set by CMake for this file alone (cmake/CudaArchitectures.cmake), from the
// architectures the file, and so the binary, is compiled for.
#ifndef GRAPHKIT_CUDA_ARCHS_BUILT
#error "GRAPHKIT_CUDA_ARCHS_BUILT must be defined by the build"
#endif

namespace graphkit::apps {
namespace {

// Compiled with the binary's own architectures: the driver finds an image of
// it for this device (machine code, or PTX it can compile) exactly when it
// finds one for every other kernel of the build. Asking the driver, rather
// than comparing compute capabilities with a list, gets PTX JIT and the
// binary compatibility of minor versions right without restating the rules.
__global__ void gpu_code_probe() {}

}  // namespace

std::string built_gpu_code() { return GRAPHKIT_CUDA_ARCHS_BUILT; }

void require_gpu_code_for_device() {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, gpu_code_probe);
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  // No image for this device; or PTX newer than the driver can compile.
  if (status != cudaErrorNoKernelImageForDevice && status != cudaErrorInvalidDeviceFunction &&
      status != cudaErrorUnsupportedPtxVersion)
    GRAPHKIT_CUDA_TRY(status);
  int device = 0;
  cudaDeviceProp props{};
  GRAPHKIT_CUDA_TRY(cudaGetDevice(&device));
  GRAPHKIT_CUDA_TRY(cudaGetDeviceProperties(&props, device));
  throw input_error(std::string("this graphkit build has no GPU code for device ") + std::to_string(device) + ", " +
                    props.name + " (compute capability " + std::to_string(props.major) + "." +
                    std::to_string(props.minor) + ", sm_" + std::to_string(props.major) + std::to_string(props.minor) +
                    "): it was built for " + built_gpu_code() + " (" + cudaGetErrorName(status) +
                    "). Rebuild for this GPU with GRAPHKIT_CUDA_ARCHS=native scripts/configure "
                    "(or cmake -DGRAPHKIT_CUDA_ARCHS=native), or run on the CPU with --device cpu");
}

}  // namespace graphkit::apps
