# Turns GRAPHKIT_CUDA_ARCHS into CMAKE_CUDA_ARCHITECTURES and records, for the
# start-up check (apps/common/gpu_code.cu), what the binaries carry.
#   auto      the GPU of this machine where CMake found one (native), else portable
#   native    the GPU of this machine (an error where there is none)
#   portable  Ampere (80, 86), Ada (89) and Hopper (90) machine code, plus
#             Hopper's PTX so that later GPUs compile it at load time
#   a list    passed to CMake as it is, e.g. 90 (what CI and scripts/gpu-check use)
# CMAKE_CUDA_ARCHITECTURES_NATIVE is what CMake's compiler check found on this
# machine ("90-real" on an H100; empty without a GPU).
set(GRAPHKIT_PORTABLE_CUDA_ARCHS 80-real 86-real 89-real 90)
if(GRAPHKIT_CUDA_ARCHS STREQUAL "auto")
  if(CMAKE_CUDA_ARCHITECTURES_NATIVE)
    set(CMAKE_CUDA_ARCHITECTURES ${CMAKE_CUDA_ARCHITECTURES_NATIVE})
  else()
    set(CMAKE_CUDA_ARCHITECTURES ${GRAPHKIT_PORTABLE_CUDA_ARCHS})
  endif()
elseif(GRAPHKIT_CUDA_ARCHS STREQUAL "native")
  if(NOT CMAKE_CUDA_ARCHITECTURES_NATIVE)
    message(FATAL_ERROR "GRAPHKIT_CUDA_ARCHS=native: CMake found no GPU on this machine; "
                        "use auto, portable or a list such as 80;90")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${CMAKE_CUDA_ARCHITECTURES_NATIVE})
elseif(GRAPHKIT_CUDA_ARCHS STREQUAL "portable")
  set(CMAKE_CUDA_ARCHITECTURES ${GRAPHKIT_PORTABLE_CUDA_ARCHS})
else()
  set(CMAKE_CUDA_ARCHITECTURES ${GRAPHKIT_CUDA_ARCHS})
endif()

# graphkit_describe_cuda_archs(<out> <CMake arch list>): the list in words,
# "sm_80, sm_90 + PTX compute_90", for messages.
function(graphkit_describe_cuda_archs out)
  set(words)
  foreach(arch IN LISTS ARGN)
    if(arch MATCHES "^([0-9]+[a-z]?)-real$")
      list(APPEND words "sm_${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)-virtual$")
      list(APPEND words "PTX compute_${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)$")
      list(APPEND words "sm_${CMAKE_MATCH_1} + PTX compute_${CMAKE_MATCH_1}")
    else()
      list(APPEND words "${arch}")
    endif()
  endforeach()
  list(JOIN words ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

graphkit_describe_cuda_archs(GRAPHKIT_CUDA_ARCHS_BUILT ${CMAKE_CUDA_ARCHITECTURES})
message(STATUS "graphkit: GPU code for ${GRAPHKIT_CUDA_ARCHS_BUILT} (GRAPHKIT_CUDA_ARCHS=${GRAPHKIT_CUDA_ARCHS})")
