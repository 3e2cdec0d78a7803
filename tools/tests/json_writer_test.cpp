// JsonWriter: escaping, nesting, commas, and misuse detection.
#include "json_writer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace accel::tools {
namespace {

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("tab\tnl\ncr\rbs\bff\f"), "\"tab\\tnl\\ncr\\rbs\\bff\\f\"");
  EXPECT_EQ(json_quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
}

TEST(JsonQuote, PassesUtf8Through) { EXPECT_EQ(json_quote("caf\xc3\xa9"), "\"caf\xc3\xa9\""); }

TEST(JsonWriter, WritesNestedDocument) {
  std::ostringstream out;
  JsonWriter json(out);
  json.begin_object();
  json.field("name", "dev \"0\"");
  json.field("count", 2);
  json.field("bytes", static_cast<std::uint64_t>(85899345920ULL));
  json.field("ok", true);
  json.key("none");
  json.null();
  json.key("list");
  json.begin_array();
  json.value(-1);
  json.begin_object();
  json.end_object();
  json.begin_array();
  json.end_array();
  json.end_array();
  json.end_object();
  EXPECT_TRUE(json.complete());
  EXPECT_EQ(out.str(),
            "{\n"
            "  \"name\": \"dev \\\"0\\\"\",\n"
            "  \"count\": 2,\n"
            "  \"bytes\": 85899345920,\n"
            "  \"ok\": true,\n"
            "  \"none\": null,\n"
            "  \"list\": [\n"
            "    -1,\n"
            "    {},\n"
            "    []\n"
            "  ]\n"
            "}\n");
}

TEST(JsonWriter, RejectsMisuse) {
  std::ostringstream out;
  JsonWriter json(out);
  EXPECT_THROW(json.key("outside"), std::logic_error);
  json.begin_object();
  EXPECT_THROW(json.value(1), std::logic_error);  // a value without a key
  EXPECT_THROW(json.end_array(), std::logic_error);
  json.key("k");
  EXPECT_THROW(json.key("again"), std::logic_error);
  EXPECT_THROW(json.end_object(), std::logic_error);  // key without its value
  json.value(1);
  json.end_object();
  EXPECT_TRUE(json.complete());
  EXPECT_THROW(json.begin_object(), std::logic_error);  // a second root
}

}  // namespace
}  // namespace accel::tools
