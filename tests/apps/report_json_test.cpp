// The JSON report (apps/common/report.cpp): the document parses, keys keep
// the order the app set them in, and text with quotes, backslashes, control
// characters and non-ASCII comes back as it went in, file names included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/common/report.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::apps {
namespace {

using json = nlohmann::ordered_json;

json written(const report& r, const std::string& path) {
  r.write_json(path);
  return json::parse(test::read_all(path));  // throws, failing the test, on anything that is not JSON
}

TEST(ReportJson, KeysValuesAndOrderRoundTrip) {
  report r("tricount");
  r.add_phase("load", 0.25);
  r.add_phase("run", 0.001);
  const std::string odd_name = "graphs/\"quoted\" back\\slash \xc3\xa9t\xc3\xa9 \xe5\x9b\xbe.el";  // été, 图
  r.set("input", odd_name);
  r.set("triangles", std::uint64_t{18446744073709551615ull});
  r.set("delta", std::int64_t{-7});
  r.set("Medges/s", 1234.5678901234567);
  r.set("key with \"quotes\"\tand\ttabs\n", std::string("line\nbreak \x01 control"));
  r.warn("line 3: \"x\" ignored \\ here");
  verification v;
  v.mismatch("vertex 5: got \"1\", want \"2\"");
  r.set_validation(v);

  const json doc = written(r, test::temp_path("_\"r\xc3\xa9port\\\".json"));
  EXPECT_EQ(doc["app"], "tricount");
  ASSERT_EQ(doc["phases_ms"].size(), 2u);
  EXPECT_EQ(doc["phases_ms"].begin().key(), "load");
  EXPECT_DOUBLE_EQ(doc["phases_ms"]["load"].get<double>(), 250.0);
  EXPECT_DOUBLE_EQ(doc["phases_ms"]["run"].get<double>(), 1.0);

  const json& m = doc["metrics"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : m.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"input", "triangles", "delta", "Medges/s", "key with \"quotes\"\tand\ttabs\n"}));
  EXPECT_EQ(m["input"], odd_name);
  EXPECT_EQ(m["triangles"].get<std::uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(m["delta"].get<std::int64_t>(), -7);
  EXPECT_EQ(m["Medges/s"].get<double>(), 1234.5678901234567);  // every digit kept
  EXPECT_EQ(m["key with \"quotes\"\tand\ttabs\n"], "line\nbreak \x01 control");

  ASSERT_EQ(doc["warnings"].size(), 1u);
  EXPECT_EQ(doc["warnings"][0], "line 3: \"x\" ignored \\ here");
  EXPECT_EQ(doc["validation"]["passed"], false);
  EXPECT_EQ(doc["validation"]["mismatches"], 1);
  EXPECT_EQ(doc["validation"]["first"][0], "vertex 5: got \"1\", want \"2\"");
}

TEST(ReportJson, NoValidationIsNullAndEmptyPartsAreEmpty) {
  report r("dedup");
  const json doc = written(r, test::temp_path(".json"));
  EXPECT_TRUE(doc["validation"].is_null());
  EXPECT_TRUE(doc["phases_ms"].is_object() && doc["phases_ms"].empty());
  EXPECT_TRUE(doc["metrics"].is_object() && doc["metrics"].empty());
  EXPECT_TRUE(doc["warnings"].is_array() && doc["warnings"].empty());
}

TEST(ReportJson, BytesThatAreNotUtf8AndNonFiniteNumbersStillGiveJson) {
  report r("sssp");
  r.set("input", std::string("latin1-\xe9t\xe9.gr"));  // a Latin-1 file name: not UTF-8
  r.set("ratio", std::numeric_limits<double>::quiet_NaN());
  r.set("speed", std::numeric_limits<double>::infinity());
  const json doc = written(r, test::temp_path(".json"));
  EXPECT_EQ(doc["metrics"]["input"], "latin1-\xef\xbf\xbdt\xef\xbf\xbd.gr");  // U+FFFD for each stray byte
  EXPECT_TRUE(doc["metrics"]["ratio"].is_null());
  EXPECT_TRUE(doc["metrics"]["speed"].is_null());
}

TEST(ReportJson, AnUnwritablePathIsAnInputError) {
  report r("sssp");
  EXPECT_THROW(r.write_json(test::temp_path("/no/such/dir/report.json")), input_error);
}

}  // namespace
}  // namespace graphkit::apps
