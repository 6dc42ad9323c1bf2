#include "report/json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace redu::report
{

JsonWriter::JsonWriter(std::ostream& out)
    : out_(out)
{}

void JsonWriter::separate()
{
  if (after_key_)
  {
    after_key_ = false;
    return;
  }
  if (open_.empty())
  {
    return;
  }
  Container& container = open_.back();
  if (!container.empty)
  {
    out_ << ',';
  }
  if (container.layout == Layout::lines)
  {
    out_ << '\n' << std::string(2 * open_.size(), ' ');
  }
  else if (!container.empty)
  {
    out_ << ' ';
  }
  container.empty = false;
}

JsonWriter& JsonWriter::begin(char bracket, Layout layout)
{
  separate();
  const bool inside_one_line = !open_.empty() && open_.back().layout == Layout::one_line;
  open_.push_back({inside_one_line ? Layout::one_line : layout});
  out_ << bracket;
  return *this;
}

JsonWriter& JsonWriter::end(char bracket)
{
  const Container closed = open_.back();
  open_.pop_back();
  if (closed.layout == Layout::lines && !closed.empty)
  {
    out_ << '\n' << std::string(2 * open_.size(), ' ');
  }
  out_ << bracket;
  if (open_.empty())
  {
    out_ << '\n';
  }
  return *this;
}

JsonWriter& JsonWriter::begin_object(Layout layout)
{
  return begin('{', layout);
}

JsonWriter& JsonWriter::end_object()
{
  return end('}');
}

JsonWriter& JsonWriter::begin_array(Layout layout)
{
  return begin('[', layout);
}

JsonWriter& JsonWriter::end_array()
{
  return end(']');
}

JsonWriter& JsonWriter::key(std::string_view name)
{
  string(name);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text)
{
  separate();
  out_ << '"';
  for (const char c : text)
  {
    if (c == '"' || c == '\\')
    {
      out_ << '\\' << c;
    }
    else if (static_cast<unsigned char>(c) < 0x20) // control characters must be escaped
    {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned int>(c));
      out_ << escaped;
    }
    else
    {
      out_ << c;
    }
  }
  out_ << '"';
  return *this;
}

JsonWriter& JsonWriter::number(double value)
{
  separate();
  if (!std::isfinite(value))
  {
    out_ << "null";
    return *this;
  }
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.17g", value);
  out_ << digits;
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value)
{
  separate();
  out_ << value;
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value)
{
  separate();
  out_ << (value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::text_members(const std::vector<std::pair<std::string, std::string>>& members)
{
  for (const auto& [name, value] : members)
  {
    key(name).string(value);
  }
  return *this;
}

} // namespace redu::report
