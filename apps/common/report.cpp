#include "apps/common/report.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "primitives/common/error.hpp"

namespace graphkit::apps {
namespace {

std::string to_text(const report::value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return x;
        } else if constexpr (std::is_same_v<T, double>) {
          std::ostringstream s;
          s << std::setprecision(6) << x;
          return s.str();
        } else {
          return std::to_string(x);
        }
      },
      v);
}

}  // namespace

void report::set(std::string key, value v) {
  for (auto& [k, old] : metrics_) {
    if (k == key) {
      old = std::move(v);
      return;
    }
  }
  metrics_.emplace_back(std::move(key), std::move(v));
}

double report::phase_seconds(const std::string& name) const {
  for (const auto& [n, s] : phases_)
    if (n == name) return s;
  return 0.0;
}

void report::print(std::ostream& out) const {
  for (const auto& w : warnings_) out << "warning: " << w << "\n";
  std::size_t width = 8;
  for (const auto& [name, s] : phases_) width = std::max(width, name.size());
  for (const auto& [key, v] : metrics_) width = std::max(width, key.size());
  out << app_ << "\n";
  out << "  " << std::left << std::setw(static_cast<int>(width)) << "phase"
      << "  time (ms)\n";
  for (const auto& [name, s] : phases_)
    out << "  " << std::left << std::setw(static_cast<int>(width)) << name << "  " << std::fixed << std::setprecision(3)
        << s * 1e3 << "\n";
  out.unsetf(std::ios::floatfield);
  for (const auto& [key, v] : metrics_)
    out << "  " << std::left << std::setw(static_cast<int>(width)) << key << "  " << to_text(v) << "\n";
  if (validated_) {
    if (validation_.passed()) {
      out << "validation: PASS\n";
    } else {
      out << "validation: FAIL (" << validation_.mismatches << " mismatches)\n";
      for (const auto& m : validation_.first) out << "  mismatch: " << m << "\n";
    }
  }
}

void report::write_json(const std::string& path) const {
  // ordered_json keeps the keys in the order the app set them, as the table shows them.
  using json = nlohmann::ordered_json;
  json doc;
  doc["app"] = app_;
  json phases = json::object();
  for (const auto& [name, seconds] : phases_) phases[name] = seconds * 1e3;
  doc["phases_ms"] = std::move(phases);
  json metrics = json::object();
  for (const auto& [key, v] : metrics_) std::visit([&metrics, &key](const auto& x) { metrics[key] = x; }, v);
  doc["metrics"] = std::move(metrics);
  doc["warnings"] = warnings_;
  if (validated_) {
    doc["validation"] = {
        {"passed", validation_.passed()}, {"mismatches", validation_.mismatches}, {"first", validation_.first}};
  } else {
    doc["validation"] = nullptr;
  }
  std::ofstream f(path);
  if (!f) throw make_input_error(path, 0, "cannot create JSON report");
  // Bytes that are not UTF-8 (a file name in another encoding) become U+FFFD
  // rather than an exception: the report is still written, and still JSON.
  f << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  if (!f) throw make_input_error(path, 0, "write failed");
}

}  // namespace graphkit::apps
