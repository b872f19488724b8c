// The one median of the project's timings and rates: the middle sample, or
// the mean of the middle two of an even count. The apps' reports and every
// benchmark use it, so the same runs give the same figure everywhere.
#pragma once

#include <algorithm>
#include <vector>

namespace graphkit {

/// 0 for no samples.
inline double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  const std::size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  if (samples.size() % 2) return samples[mid];
  const double upper = samples[mid];
  return 0.5 * (*std::max_element(samples.begin(), samples.begin() + mid) + upper);
}

}  // namespace graphkit
