// The one report every app prints: phases with their times, metrics, and the
// validation outcome, as a human table on stdout and the same as JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "primitives/common/median.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit::apps {

/// The first mismatches between a result and its oracle, not just a boolean.
struct verification {
  static constexpr std::size_t kShown = 10;
  std::size_t mismatches = 0;
  std::vector<std::string> first;  ///< up to kShown descriptions

  void mismatch(std::string what) {
    if (first.size() < kShown) first.push_back(std::move(what));
    ++mismatches;
  }
  [[nodiscard]] bool passed() const noexcept { return mismatches == 0; }
};

class report {
 public:
  using value = std::variant<std::int64_t, std::uint64_t, double, std::string>;

  explicit report(std::string app) : app_(std::move(app)) {}

  void add_phase(std::string name, double seconds) { phases_.push_back({std::move(name), seconds}); }
  void set(std::string key, value v);
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  void set_validation(verification v) { validation_ = std::move(v), validated_ = true; }

  [[nodiscard]] bool validation_failed() const { return validated_ && !validation_.passed(); }
  [[nodiscard]] double phase_seconds(const std::string& name) const;
  /// In the order they ran / were set (the Python module hands them over as dicts).
  [[nodiscard]] const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  [[nodiscard]] const std::vector<std::pair<std::string, value>>& metrics() const { return metrics_; }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

  /// Phases, then metrics, then "validation: PASS|FAIL" (when validated).
  void print(std::ostream& out) const;
  void write_json(const std::string& path) const;

 private:
  std::string app_;
  std::vector<std::pair<std::string, double>> phases_;
  std::vector<std::pair<std::string, value>> metrics_;
  std::vector<std::string> warnings_;
  verification validation_;
  bool validated_ = false;
};

/// Times a phase with the host clock (GPU phases synchronize before they end)
/// and marks it with an NVTX range for Nsight Systems.
class phase_timer {
 public:
  phase_timer(report& r, const char* name) : report_(r), name_(name), range_(name) {}
  phase_timer(const phase_timer&) = delete;
  phase_timer& operator=(const phase_timer&) = delete;
  ~phase_timer() { report_.add_phase(name_, seconds()); }
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  report& report_;
  const char* name_;
  nvtx_range range_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

using ::graphkit::median;  // primitives/common/median.hpp

}  // namespace graphkit::apps
