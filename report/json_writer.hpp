// A minimal JSON writer for the studies' results files: objects, arrays, escaped strings, numbers that
// read back as the same double. It places the commas and the indentation, so a program only says what
// it writes, in the order a reader will see it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redu::report
{

// `lines`: one member per line, indented (the file's outline); `one_line`: the whole container on one
// line (a record of a results table, so the file reads one row per line). Containers inside a one-line
// container are one-line too.
enum class Layout
{
  lines,
  one_line
};

class JsonWriter
{
public:
  explicit JsonWriter(std::ostream& out);

  JsonWriter& begin_object(Layout layout = Layout::lines);
  JsonWriter& end_object();
  JsonWriter& begin_array(Layout layout = Layout::lines);
  JsonWriter& end_array();
  // Inside an object, before each member's value.
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);
  // Up to 17 significant digits, enough for any double to read back unchanged; NaN and the infinities,
  // which JSON cannot hold, are written as null.
  JsonWriter& number(double value);
  JsonWriter& integer(std::int64_t value);
  JsonWriter& boolean(bool value);
  // Each pair as a member whose value is text (a results file's provenance context).
  JsonWriter& text_members(const std::vector<std::pair<std::string, std::string>>& members);

private:
  struct Container
  {
    Layout layout;
    bool empty = true;
  };
  // The comma, line break and indentation that go before a value (nothing right after a key).
  void separate();
  JsonWriter& begin(char bracket, Layout layout);
  JsonWriter& end(char bracket);

  std::ostream& out_;
  std::vector<Container> open_;
  bool after_key_ = false;
};

} // namespace redu::report
