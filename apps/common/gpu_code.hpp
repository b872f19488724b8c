// Whether this binary carries GPU code the current device can run. A build for
// other GPUs (sm_90 only, say, on an A100) would otherwise fail at its first
// kernel with a CUDA error that reads like a bug; this says what to do instead.
#pragma once

#include <string>

namespace graphkit::apps {

/// The GPU code this binary was built with, in words ("sm_90 + PTX compute_90").
std::string built_gpu_code();

/// Throws input_error (exit 2) when the current device can run none of this
/// binary's GPU code, naming the device, what the binary was built for and
/// how to rebuild; any other CUDA failure is a cuda_error. Creates the CUDA
/// context if there is none yet, so call it where the context starts anyway.
void require_gpu_code_for_device();

}  // namespace graphkit::apps
