// The per-GPU tuning tables (common/host/tuning.hpp): the format scripts/tune_shapes.py writes, and the
// refusal of a malformed line, on the host; the checked-in tables themselves parse.
#include "common/host/tuning.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace redu::test
{
namespace
{

TEST(TuningTable, ReadsNamesAndValuesAndSkipsCommentsAndBlankLines)
{
  TuningTable table;
  ASSERT_TRUE(parse_tuning_table("# written by scripts/tune_shapes.py\n\nmodern.waves 16   # the best of 4, 16, 64\n"
                                 "modern.large_input_log2\t27\n",
                                 table)
                  .ok());
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.at("modern.waves"), 16);
  EXPECT_EQ(table.at("modern.large_input_log2"), 27);
}

TEST(TuningTable, RefusesAMalformedLineByNumber)
{
  TuningTable table;
  const Status missing = parse_tuning_table("modern.waves 16\nmodern.large_input_log2\n", table);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("line 2"), std::string::npos) << missing.message();
  EXPECT_FALSE(parse_tuning_table("modern.waves sixteen\n", table).ok());
  EXPECT_FALSE(parse_tuning_table("modern.waves 16 32\n", table).ok());
}

// The names tuning/README.md documents, from its table's rows ("| `modern.waves` | 64 | ...").
std::set<std::string> documented_names()
{
  std::ifstream in(std::string(REDU_SOURCE_DIR) + "/tuning/README.md");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line))
  {
    if (line.rfind("| `", 0) == 0)
    {
      names.insert(line.substr(3, line.find('`', 3) - 3));
    }
  }
  return names;
}

// A table parses, and names only values some kernel reads: a misspelt name would otherwise be ignored
// and the kernel would run on its default.
TEST(TuningTable, EveryCheckedInTableParsesAndNamesOnlyDocumentedValues)
{
  const std::set<std::string> known = documented_names();
  ASSERT_FALSE(known.empty()) << "tuning/README.md lists no names";
  int tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(REDU_SOURCE_DIR) + "/tuning"))
  {
    if (entry.path().extension() != ".txt")
    {
      continue;
    }
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    TuningTable table;
    const Status s = parse_tuning_table(text.str(), table);
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << s.message();
    for (const auto& [name, value] : table)
    {
      EXPECT_TRUE(known.count(name) == 1) << entry.path() << " sets " << name << ", which tuning/README.md does not list";
    }
    ++tables;
  }
  if (tables == 0)
  {
    GTEST_SKIP() << "no table in tuning/ yet (scripts/tune_shapes.py writes them on each GPU)";
  }
}

} // namespace
} // namespace redu::test
