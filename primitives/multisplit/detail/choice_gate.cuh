// A gate on a kernel launched beside another that does the same job
// another way (block_wide_spread: two post-scans on one matrix), so that
// the device, not the host, picks which one runs: the host would have to
// wait for the counts to know.
#pragma once

#include <cstdint>

namespace graphkit::multisplit_detail {

/// The answers a choice word holds (detail/spread_choice.cuh and
/// detail/compact_ids.cuh write them).
inline constexpr std::uint32_t kDigitRankChosen = 0, kPeerMasksChosen = 1, kCompactIdsChosen = 2;

/// Runs the kernel only where the word `choice` holds `when`; open (no
/// word) for a kernel launched alone. A kernel tests it first, in every
/// block alike, before any barrier.
struct choice_gate {
  const std::uint32_t* choice = nullptr;
  std::uint32_t when = 0;
  [[nodiscard]] __device__ bool closed() const { return choice != nullptr && *choice != when; }
};

}  // namespace graphkit::multisplit_detail
