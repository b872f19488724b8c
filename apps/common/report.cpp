#include "apps/common/report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "primitives/common/error.hpp"

namespace graphkit::apps {
namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string to_text(const report::value& v, bool json) {
  return std::visit(
      [json](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return json ? "\"" + json_escape(x) + "\"" : x;
        } else if constexpr (std::is_same_v<T, double>) {
          std::ostringstream s;
          s << std::setprecision(json ? 17 : 6) << x;
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

double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

void report::print(std::ostream& out) const {
  for (const auto& w : warnings_) out << "warning: " << w << "\n";
  std::size_t width = 8;
  for (const auto& [name, s] : phases_) width = std::max(width, name.size());
  for (const auto& [key, v] : metrics_) width = std::max(width, key.size());
  out << app_ << "\n";
  out << "  " << std::left << std::setw(static_cast<int>(width)) << "phase" << "  time (ms)\n";
  for (const auto& [name, s] : phases_)
    out << "  " << std::left << std::setw(static_cast<int>(width)) << name << "  " << std::fixed
        << std::setprecision(3) << s * 1e3 << "\n";
  out.unsetf(std::ios::floatfield);
  for (const auto& [key, v] : metrics_)
    out << "  " << std::left << std::setw(static_cast<int>(width)) << key << "  " << to_text(v, false) << "\n";
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
  std::ofstream f(path);
  if (!f) throw make_input_error(path, 0, "cannot create JSON report");
  f << "{\n  \"app\": \"" << json_escape(app_) << "\",\n  \"phases_ms\": {";
  for (std::size_t i = 0; i < phases_.size(); ++i)
    f << (i ? ", " : "") << "\"" << json_escape(phases_[i].first) << "\": " << std::setprecision(17)
      << phases_[i].second * 1e3;
  f << "},\n  \"metrics\": {";
  for (std::size_t i = 0; i < metrics_.size(); ++i)
    f << (i ? ", " : "") << "\"" << json_escape(metrics_[i].first) << "\": " << to_text(metrics_[i].second, true);
  f << "},\n  \"warnings\": [";
  for (std::size_t i = 0; i < warnings_.size(); ++i) f << (i ? ", " : "") << "\"" << json_escape(warnings_[i]) << "\"";
  f << "],\n  \"validation\": ";
  if (!validated_) {
    f << "null";
  } else {
    f << "{\"passed\": " << (validation_.passed() ? "true" : "false") << ", \"mismatches\": " << validation_.mismatches
      << ", \"first\": [";
    for (std::size_t i = 0; i < validation_.first.size(); ++i)
      f << (i ? ", " : "") << "\"" << json_escape(validation_.first[i]) << "\"";
    f << "]}";
  }
  f << "\n}\n";
  if (!f) throw make_input_error(path, 0, "write failed");
}

}  // namespace graphkit::apps
