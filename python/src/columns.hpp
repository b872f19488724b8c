// A numpy column seen as the element type graphkit stores: a view on the
// array's own memory where the dtype's layout already fits (int32 ids, int32
// weights, int64 offsets), else a checked, converted copy. Every element is
// checked either way (ids in range, weights integral); the first bad one is
// named by its index and value. Runs without the GIL: the caller keeps the
// array alive.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/detail/parallel.hpp"
#include "graph/host_transfer.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::python {

/// A 1-D C-contiguous numpy array's memory and dtype (numpy's kind letter:
/// 'i' signed, 'u' unsigned, 'f' floating, 'b' boolean).
struct raw_column {
  const void* data = nullptr;
  std::size_t size = 0;
  char kind = 'i';
  std::size_t itemsize = 4;
  std::string name;  ///< for messages: "src", "indices", ...
};

/// Storage: what the values end up in on the host, std::vector<T> (CSR
/// arrays) or host_array<T> (edge arrays), so that converted values move.
template <class T, class Storage = std::vector<T>>
struct column {
  std::span<const T> values;
  Storage converted;  ///< holds the values where they could not be viewed
  /// The values as a Storage of their own: moved where converted, else copied.
  Storage take() {
    if (!converted.empty()) return std::move(converted);
    return Storage(values.begin(), values.end());
  }
};

namespace detail {

/// Calls fn(const S*) with S the column's C++ element type.
template <class Fn>
void visit(const raw_column& c, Fn&& fn) {
  const auto bad = [&] {
    return input_error(c.name + ": numpy dtype of kind '" + std::string(1, c.kind) + "' and " +
                       std::to_string(c.itemsize) + " bytes is not a number type graphkit reads");
  };
  switch (c.kind) {
    case 'i':
      switch (c.itemsize) {
        case 1: return fn(static_cast<const std::int8_t*>(c.data));
        case 2: return fn(static_cast<const std::int16_t*>(c.data));
        case 4: return fn(static_cast<const std::int32_t*>(c.data));
        case 8: return fn(static_cast<const std::int64_t*>(c.data));
      }
      break;
    case 'u':
      switch (c.itemsize) {
        case 1: return fn(static_cast<const std::uint8_t*>(c.data));
        case 2: return fn(static_cast<const std::uint16_t*>(c.data));
        case 4: return fn(static_cast<const std::uint32_t*>(c.data));
        case 8: return fn(static_cast<const std::uint64_t*>(c.data));
      }
      break;
    case 'f':
      switch (c.itemsize) {
        case 4: return fn(static_cast<const float*>(c.data));
        case 8: return fn(static_cast<const double*>(c.data));
      }
      break;
    case 'b':
      if (c.itemsize == 1) return fn(static_cast<const std::uint8_t*>(c.data));
      break;
  }
  throw bad();
}

/// Whether a column of S can be read in place as T: same size, both integers
/// (the range check has then ruled out the values whose meaning would change).
template <class S, class T>
inline constexpr bool viewable = sizeof(S) == sizeof(T) && std::is_integral_v<S>&& std::is_integral_v<T>;

}  // namespace detail

/// What a column's values must be: `accepts(value)` (any numpy element type)
/// and the rule in words, for the message that names the first value that
/// breaks it.
struct vertex_ids {
  vertex_t n;
  template <class V>
  bool operator()(V v) const {
    if constexpr (std::is_floating_point_v<V>) return false;
    else if constexpr (std::is_signed_v<V>) return v >= 0 && static_cast<std::uint64_t>(v) < n;
    else return static_cast<std::uint64_t>(v) < n;
  }
  [[nodiscard]] std::string expected() const { return "vertex ids must be integers in [0, " + std::to_string(n) + ")"; }
};

/// Integers (integral floats are taken) that fit graphkit's 32-bit weights;
/// non-negative where `nonnegative` (shortest paths).
struct integer_weights {
  bool nonnegative;
  template <class V>
  bool operator()(V v) const {
    const double d = static_cast<double>(v);
    if constexpr (std::is_floating_point_v<V>)
      if (std::floor(d) != d) return false;  // also NaN
    return d >= (nonnegative ? 0.0 : -2147483648.0) && d <= 2147483647.0;
  }
  [[nodiscard]] std::string expected() const {
    return nonnegative ? "shortest paths need integer weights in [0, 2^31)"
                       : "weights must be integers in [-2^31, 2^31)";
  }
};

/// CSR offsets: non-negative integers (monotony is checked by the caller).
struct offset_values {
  template <class V>
  bool operator()(V v) const {
    if constexpr (std::is_floating_point_v<V>) return false;
    else if constexpr (std::is_signed_v<V>) return v >= 0;
    else return true;
  }
  [[nodiscard]] std::string expected() const { return "CSR offsets must be non-negative integers"; }
};

namespace detail {

/// The input_error for element i of `c`, which breaks `rule`.
template <class S, class Rule>
input_error broken_rule(const raw_column& c, const S* in, std::size_t i, const Rule& rule) {
  std::ostringstream value;
  value << +in[i];
  return input_error(c.name + "[" + std::to_string(i) + "] = " + value.str() + ": " + rule.expected());
}

}  // namespace detail

/// The column as T on the host, every value checked against `rule`.
/// Parallel over the host's cores.
template <class T, class Storage = std::vector<T>, class Rule>
column<T, Storage> to_column(const raw_column& c, const Rule& rule) {
  column<T, Storage> out;
  detail::visit(c, [&](const auto* in) {
    using S = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
    constexpr bool view = detail::viewable<S, T>;
    // Every slot is written below; a host_array's pages fault in on the threads that write them.
    if constexpr (!view) {
      if constexpr (std::is_same_v<Storage, std::vector<T>>) out.converted = prepared_vector<T>(c.size);
      else out.converted.resize(c.size);
    }
    T* converted = out.converted.data();
    const std::size_t parts = c.size < (std::size_t{1} << 20) ? 1 : graphkit::detail::host_threads();
    std::vector<std::size_t> first_bad(parts, c.size);
    graphkit::detail::parallel_parts(parts, [&](std::size_t p) {
      const auto [begin, end] = graphkit::detail::part_range(c.size, parts, p);
      for (std::size_t i = begin; i < end; ++i) {
        if (!rule(in[i])) {
          first_bad[p] = i;
          return;
        }
        if constexpr (!view) converted[i] = static_cast<T>(in[i]);
      }
    });
    for (const std::size_t i : first_bad)
      if (i != c.size) throw detail::broken_rule(c, in, i, rule);
    if constexpr (view) out.values = {reinterpret_cast<const T*>(in), c.size};
    else out.values = out.converted;
  });
  return out;
}

/// The column as T on the device, checked and converted by the transfer
/// lanes as they fill their pinned chunks (fill_device): no converted host
/// copy, whose fresh pages were most of a CSR call's cost, and one pass over
/// the numpy memory instead of a check, a conversion and a copy.
template <class T, class Rule>
device_buffer<T> to_device_column(const raw_column& c, const Rule& rule) {
  device_buffer<T> out(c.size);
  detail::visit(c, [&](const auto* in) {
    std::atomic<std::size_t> first_bad{c.size};
    // Converting, not the link, sets the pace here: a lane per core.
    transfer_options lanes;
    lanes.threads = std::min(16u, graphkit::detail::host_threads());
    fill_device(
        out.data(), out.bytes(),
        [&](char* chunk, std::size_t at, std::size_t len) {
          // Elements [whole_begin, whole_end) lie wholly in the chunk: checked in
          // one branch-free pass (the rare bad column is then searched for its
          // first bad value), then converted into place. A lane's share may
          // start or end inside an element: those bytes are copied one by one.
          constexpr std::size_t kSize = sizeof(T);
          const std::size_t whole_begin = (at + kSize - 1) / kSize, whole_end = (at + len) / kSize;
          const std::size_t first = at / kSize, last = (at + len + kSize - 1) / kSize;
          bool all_good = true;
          for (std::size_t i = first; i < last; ++i) all_good &= rule(in[i]);
          if (!all_good) {
            std::size_t i = first;
            while (rule(in[i])) ++i;
            std::size_t seen = first_bad.load(std::memory_order_relaxed);
            while (i < seen && !first_bad.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
            }
            return;  // the call throws: the rest of the chunk does not matter
          }
          for (std::size_t i = whole_begin; i < whole_end; ++i) {
            const T value = static_cast<T>(in[i]);
            std::memcpy(chunk + (i * kSize - at), &value, kSize);
          }
          for (const std::size_t i : {first, last - 1}) {  // the partial ones, if any
            if (i >= whole_begin && i < whole_end) continue;
            const T value = static_cast<T>(in[i]);
            const std::size_t from = std::max(at, i * kSize), to = std::min(at + len, (i + 1) * kSize);
            std::memcpy(chunk + (from - at), reinterpret_cast<const char*>(&value) + (from - i * kSize), to - from);
          }
        },
        lanes);
    if (const std::size_t i = first_bad.load(); i != c.size) throw detail::broken_rule(c, in, i, rule);
  });
  return out;
}

template <class Storage = std::vector<vertex_t>>
column<vertex_t, Storage> vertex_column(const raw_column& c, vertex_t n) {
  return to_column<vertex_t, Storage>(c, vertex_ids{n});
}
template <class Storage = std::vector<weight_t>>
column<weight_t, Storage> weight_column(const raw_column& c, bool nonnegative) {
  return to_column<weight_t, Storage>(c, integer_weights{nonnegative});
}
inline column<edge_t> offset_column(const raw_column& c) { return to_column<edge_t>(c, offset_values{}); }

}  // namespace graphkit::python
