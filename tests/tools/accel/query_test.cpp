// `accel info --query`: the field list, the format words, and the exact lines (query.h).
#include "query.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace accel::tools {
namespace {

constexpr const char* kFieldList =
    "index, name, uuid, pci.bus_id, compute_cap, multiprocessors, mig.mode.current, "
    "memory.total, memory.used, memory.free";

std::string error_of(void (*call)()) {
  try {
    call();
  } catch (const QueryError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(QueryFields, ParsesTheListInOrderWithRepeats) {
  EXPECT_EQ(
      parse_query_fields("name,uuid,pci.bus_id,memory.total,memory.used"),
      (std::vector<std::string>{"name", "uuid", "pci.bus_id", "memory.total", "memory.used"}));
  EXPECT_EQ(parse_query_fields("index,index"), (std::vector<std::string>{"index", "index"}));
}

TEST(QueryFields, UnknownFieldIsNamedWithTheValidOnes) {
  EXPECT_EQ(error_of([] { (void)parse_query_fields("name,memory.usd"); }),
            std::string("unknown field 'memory.usd' (fields: ") + kFieldList + ")");
  // nvidia-smi's spelling of the bus id is the only one.
  EXPECT_EQ(error_of([] { (void)parse_query_fields("pci_bus_id"); }),
            std::string("unknown field 'pci_bus_id' (fields: ") + kFieldList + ")");
}

TEST(QueryFields, EmptyListOrFieldIsAnError) {
  EXPECT_EQ(error_of([] { (void)parse_query_fields(""); }),
            std::string("an empty field in '' (fields: ") + kFieldList + ")");
  EXPECT_EQ(error_of([] { (void)parse_query_fields("name,,uuid"); }),
            std::string("an empty field in 'name,,uuid' (fields: ") + kFieldList + ")");
  EXPECT_EQ(error_of([] { (void)parse_query_fields("name,"); }),
            std::string("an empty field in 'name,' (fields: ") + kFieldList + ")");
}

TEST(QueryFormat, CsvTextAndNvidiaSmiModifiers) {
  const QueryFormat csv = parse_query_format("csv");
  EXPECT_TRUE(csv.csv);
  EXPECT_TRUE(csv.header);
  EXPECT_TRUE(csv.units);
  const QueryFormat text = parse_query_format("text,noheader");
  EXPECT_FALSE(text.csv);
  EXPECT_FALSE(text.header);
  EXPECT_TRUE(text.units);
  const QueryFormat bare = parse_query_format("csv,nounits,noheader");
  EXPECT_FALSE(bare.header);
  EXPECT_FALSE(bare.units);
}

TEST(QueryFormat, BadWordsAreNamed) {
  constexpr const char* kExpected =
      "(expected csv or text, optionally followed by ,noheader and ,nounits)";
  EXPECT_EQ(error_of([] { (void)parse_query_format("json"); }),
            std::string("unknown format 'json' in 'json' ") + kExpected);
  EXPECT_EQ(error_of([] { (void)parse_query_format("csv,nohead"); }),
            std::string("unknown modifier 'nohead' in 'csv,nohead' ") + kExpected);
  // A modifier is not a format, and a format comes first.
  EXPECT_EQ(error_of([] { (void)parse_query_format("noheader"); }),
            std::string("unknown format 'noheader' in 'noheader' ") + kExpected);
  EXPECT_EQ(error_of([] { (void)parse_query_format("csv,text"); }),
            std::string("unknown modifier 'text' in 'csv,text' ") + kExpected);
}

std::vector<DeviceRow> rows() {
  DeviceRow a;
  a.index = 0;
  a.name = "NVIDIA H100 80GB HBM3";
  a.uuid = "GPU-a27905a9-0000-0000-0000-000000000000";
  a.pci_bus_id = "00000000:10:00.0";
  a.cc_major = 9;
  a.cc_minor = 0;
  a.multiprocessors = 132;
  a.mig_mode = "Disabled";
  a.total_bytes = 80ULL << 30;
  a.free_bytes = (80ULL << 30) - (3ULL << 20) - 512;  // 3 MiB and a bit in use
  // A device whose memory query failed, and a name that needs quoting in CSV.
  DeviceRow b;
  b.index = 1;
  b.name = "Card \"B\", rev 2";
  return {a, b};
}

std::string render(const std::vector<std::string>& fields, const std::string& format) {
  std::ostringstream out;
  render_query(rows(), fields, parse_query_format(format), out);
  return out.str();
}

TEST(RenderQuery, CsvAsNvidiaSmiWritesIt) {
  EXPECT_EQ(render({"name", "uuid", "pci.bus_id", "memory.total", "memory.used"}, "csv"),
            "name, uuid, pci.bus_id, memory.total [MiB], memory.used [MiB]\n"
            "NVIDIA H100 80GB HBM3, GPU-a27905a9-0000-0000-0000-000000000000, "
            "00000000:10:00.0, 81920 MiB, 3 MiB\n"
            "\"Card \"\"B\"\", rev 2\", [N/A], [N/A], [N/A], [N/A]\n");
}

TEST(RenderQuery, NoHeaderNoUnits) {
  EXPECT_EQ(render({"index", "memory.free", "compute_cap"}, "csv,noheader,nounits"),
            "0, 81916, 9.0\n"
            "1, [N/A], [N/A]\n");
}

TEST(RenderQuery, TextAlignsColumns) {
  EXPECT_EQ(render({"index", "name", "multiprocessors", "mig.mode.current"}, "text"),
            "index  name                   multiprocessors  mig.mode.current\n"
            "0      NVIDIA H100 80GB HBM3  132              Disabled\n"
            "1      Card \"B\", rev 2        [N/A]            [N/A]\n");
}

TEST(RenderQuery, NoDevicesIsTheHeaderAlone) {
  std::ostringstream out;
  render_query({}, {"name", "memory.total"}, parse_query_format("csv"), out);
  EXPECT_EQ(out.str(), "name, memory.total [MiB]\n");
}

}  // namespace
}  // namespace accel::tools
