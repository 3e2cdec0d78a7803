// The streaming JSON reader (json_reader.h): the tokens it reports, the values it decodes,
// and every malformed input named with its byte and line. Chunk boundaries are crossed by
// reading from a file of more than one chunk.
#include "json_reader.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace.h"

namespace accel::replay {
namespace {

// Every token as text: "{", "}", "[", "]", "k:name", "s:text", "u:12", "i:-3", "f:0.5",
// "true", "false", "null".
class Recorder final : public JsonHandler {
 public:
  std::vector<std::string> tokens;
  void null_value() override { tokens.push_back("null"); }
  void boolean(bool value) override { tokens.push_back(value ? "true" : "false"); }
  void integer(std::int64_t value) override { tokens.push_back("i:" + std::to_string(value)); }
  void unsigned_integer(std::uint64_t value) override {
    tokens.push_back("u:" + std::to_string(value));
  }
  void floating(double value) override {
    char text[64];
    std::snprintf(text, sizeof text, "f:%.17g", value);
    tokens.push_back(text);
  }
  void string(std::string_view value) override { tokens.push_back("s:" + std::string(value)); }
  void key(std::string_view name) override { tokens.push_back("k:" + std::string(name)); }
  void start_object() override { tokens.push_back("{"); }
  void end_object() override { tokens.push_back("}"); }
  void start_array() override { tokens.push_back("["); }
  void end_array() override { tokens.push_back("]"); }
};

std::vector<std::string> tokens_of(std::string_view text) {
  TraceSource source(text, "t.json");
  Recorder recorder;
  read_json(source, recorder);
  return recorder.tokens;
}

std::string error_of(std::string_view text) {
  try {
    (void)tokens_of(text);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

using Tokens = std::vector<std::string>;

TEST(JsonReader, StructureAndScalars) {
  EXPECT_EQ(tokens_of(" {\"a\": [1, -2, 3.5, true, false, null, \"x\"], \"b\": {}, \"c\": []} \n"),
            (Tokens{"{", "k:a", "[", "u:1", "i:-2", "f:3.5", "true", "false", "null", "s:x", "]",
                    "k:b", "{", "}", "k:c", "[", "]", "}"}));
  EXPECT_EQ(tokens_of("7"), (Tokens{"u:7"}));
  EXPECT_EQ(tokens_of("\"\""), (Tokens{"s:"}));
}

TEST(JsonReader, NumbersAsNlohmannReadsThem) {
  EXPECT_EQ(tokens_of("[0, -0, 18446744073709551615, -9223372036854775808]"),
            (Tokens{"[", "u:0", "i:0", "u:18446744073709551615", "i:-9223372036854775808", "]"}));
  // Outside 64 bits, or with a fraction or an exponent: a double.
  EXPECT_EQ(tokens_of("[18446744073709551616, -9223372036854775809, 1e3, 2E-1, 1.25e+2]"),
            (Tokens{"[", "f:1.8446744073709552e+19", "f:-9.2233720368547758e+18", "f:1000",
                    "f:0.20000000000000001", "f:125", "]"}));
}

TEST(JsonReader, EscapesAndUtf8AreDecoded) {
  EXPECT_EQ(tokens_of(R"(["\"\\\/\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00", "\u0000"])"),
            (Tokens{"[", "s:\"\\/\b\f\n\r\t", "s:\xc3\xa9\xe2\x82\xac", "s:\xf0\x9f\x98\x80",
                    std::string("s:\0", 3), "]"}));
  EXPECT_EQ(tokens_of("\"caf\xc3\xa9 \xf0\x9f\x98\x80\""), (Tokens{"s:caf\xc3\xa9 \xf0\x9f\x98\x80"}));
}

TEST(JsonReader, MalformedInputIsNamedWithItsByteAndLine) {
  EXPECT_EQ(error_of(""), "t.json:1: malformed JSON at byte 0: unexpected end of input; expected a value");
  EXPECT_EQ(error_of("{\"a\": 1\n"),
            "t.json:1: malformed JSON at byte 8: unexpected end of input; expected ',' or '}'");
  EXPECT_EQ(error_of("[1 2]"), "t.json:1: malformed JSON at byte 4: unexpected '2'; expected ',' or ']'");
  EXPECT_EQ(error_of("{\n\"a\" 1}"), "t.json:2: malformed JSON at byte 7: unexpected '1'; expected ':'");
  EXPECT_EQ(error_of("{1: 2}"),
            "t.json:1: malformed JSON at byte 2: unexpected '1'; expected a key (a string) or '}'");
  EXPECT_EQ(error_of("{\"a\": 1,}"),
            "t.json:1: malformed JSON at byte 9: unexpected '}'; expected a key (a string)");
  EXPECT_EQ(error_of("[1,]"), "t.json:1: malformed JSON at byte 4: unexpected ']'; expected a value");
  EXPECT_EQ(error_of("{} {}"),
            "t.json:1: malformed JSON at byte 4: unexpected '{' after the end of the document");
  EXPECT_EQ(error_of("[tru]"), "t.json:1: malformed JSON at byte 5: unexpected ']'; expected 'true'");
  EXPECT_EQ(error_of("nul"), "t.json:1: malformed JSON at byte 3: unexpected end of input; expected 'null'");
  EXPECT_EQ(error_of("[\x01]"), "t.json:1: malformed JSON at byte 2: unexpected byte 0x01; expected a value");
}

TEST(JsonReader, MalformedNumbers) {
  EXPECT_EQ(error_of("[01]"), "t.json:1: malformed JSON at byte 2: invalid number '01'");
  EXPECT_EQ(error_of("[1.]"), "t.json:1: malformed JSON at byte 2: invalid number '1.'");
  EXPECT_EQ(error_of("[-]"), "t.json:1: malformed JSON at byte 2: invalid number '-'");
  EXPECT_EQ(error_of("[1e+]"), "t.json:1: malformed JSON at byte 2: invalid number '1e+'");
  EXPECT_EQ(error_of("[+1]"), "t.json:1: malformed JSON at byte 2: unexpected '+'; expected a value");
  EXPECT_EQ(error_of("[.5]"), "t.json:1: malformed JSON at byte 2: unexpected '.'; expected a value");
  EXPECT_EQ(error_of("[1e999]"), "t.json:1: malformed JSON at byte 2: number out of range '1e999'");
}

TEST(JsonReader, MalformedStrings) {
  EXPECT_EQ(error_of("[\"ab"),
            "t.json:1: malformed JSON at byte 4: unexpected end of input; expected '\"' to close "
            "the string");
  EXPECT_EQ(error_of("[\"a\nb\"]"),
            "t.json:1: malformed JSON at byte 4: control character U+000A in a string (it must be "
            "escaped)");
  EXPECT_EQ(error_of("[\"\\q\"]"), "t.json:1: malformed JSON at byte 4: invalid escape \\q in a string");
  EXPECT_EQ(error_of("[\"\\u12G4\"]"),
            "t.json:1: malformed JSON at byte 7: unexpected 'G'; expected four hexadecimal digits "
            "after \\u");
  EXPECT_EQ(error_of("[\"\\udc00\"]"),
            "t.json:1: malformed JSON at byte 9: a lone low surrogate \\uDC00 in a string");
  EXPECT_EQ(error_of("[\"\\ud800x\"]"),
            "t.json:1: malformed JSON at byte 9: a high surrogate \\uD800 not followed by a low one");
  EXPECT_EQ(error_of("[\"\\ud800\\u0041\"]"),
            "t.json:1: malformed JSON at byte 15: a high surrogate \\uD800 not followed by a low one");
  EXPECT_EQ(error_of("[\"a\xff\"]"), "t.json:1: malformed JSON at byte 4: invalid UTF-8 in a string");
  EXPECT_EQ(error_of("[\"\xc3\"]"), "t.json:1: malformed JSON at byte 4: invalid UTF-8 in a string");
  EXPECT_EQ(error_of("[\"\xe0\x80\xaf\"]"),  // overlong
            "t.json:1: malformed JSON at byte 4: invalid UTF-8 in a string");
  EXPECT_EQ(error_of("[\"\xed\xa0\x80\"]"),  // a surrogate in UTF-8
            "t.json:1: malformed JSON at byte 4: invalid UTF-8 in a string");
}

TEST(JsonReader, NestingIsBounded) {
  const std::string deep(kMaxDepth, '[');
  EXPECT_EQ(error_of(deep + deep),
            "t.json:1: malformed JSON at byte 10001: arrays and objects nested deeper than 10000 "
            "levels");
  EXPECT_EQ(tokens_of(deep + std::string(kMaxDepth, ']')).size(), 2 * kMaxDepth);
}

// Strings, numbers and literals cut by a chunk boundary read as when whole.
TEST(JsonReader, TokensAcrossChunkBoundaries) {
  std::string pattern = (std::filesystem::temp_directory_path() / "accel-json-XXXXXX").string();
  ASSERT_NE(::mkstemp(pattern.data()), -1);
  std::string text = "[";
  const std::string piece = "\"caf\xc3\xa9\\u20ac\\ud83d\\ude00\", 12345678901234567890, -17, "
                            "2.5e-3, true, null, false, ";
  while (text.size() < 2 * TraceSource::kChunkBytes + 100) text += piece;
  text += "0]";
  std::ofstream(pattern, std::ios::binary) << text;
  TraceSource file = TraceSource::open_file(pattern, std::uint64_t{1} << 30);
  Recorder from_file;
  read_json(file, from_file);
  std::filesystem::remove(pattern);
  EXPECT_EQ(from_file.tokens, tokens_of(text));
  EXPECT_EQ(from_file.tokens[1], "s:caf\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace accel::replay
