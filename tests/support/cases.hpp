// The test matrix: one case per registered implementation x declared kind x element type x operator.
#pragma once

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

namespace redu::test
{

struct Case
{
  const Reduction* impl;
  DType dtype;
  Op op;
  Kind kind;
};

// What ctest and gtest print for a case (instead of the bytes of the struct).
inline void PrintTo(const Case& c, std::ostream* os)
{
  *os << c.impl->info().name << " " << to_string(c.dtype) << " " << to_string(c.op) << " " << to_string(c.kind);
}

inline std::vector<Case> registered_cases()
{
  std::vector<Case> cases;
  for (const Reduction* impl : registry())
  {
    for (Kind kind : impl->info().kinds)
    {
      for (DType dtype : impl->info().dtypes)
      {
        for (Op op : impl->info().ops)
        {
          cases.push_back({impl, dtype, op, kind});
        }
      }
    }
  }
  return cases;
}

inline std::string case_name(const testing::TestParamInfo<Case>& info)
{
  std::string name = info.param.impl->info().name + "_" + to_string(info.param.dtype) + "_"
                   + to_string(info.param.op) + "_" + to_string(info.param.kind);
  for (char& c : name)
  {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

// One case per registered implementation x declared kind, for tests that choose types and operators
// themselves.
struct ImplKind
{
  const Reduction* impl;
  Kind kind;
};

inline void PrintTo(const ImplKind& c, std::ostream* os)
{
  *os << c.impl->info().name << " " << to_string(c.kind);
}

inline std::vector<ImplKind> implementations_by_kind()
{
  std::vector<ImplKind> cases;
  for (const Reduction* impl : registry())
  {
    for (Kind kind : impl->info().kinds)
    {
      cases.push_back({impl, kind});
    }
  }
  return cases;
}

inline std::string impl_kind_name(const testing::TestParamInfo<ImplKind>& info)
{
  std::string name = info.param.impl->info().name + "_" + to_string(info.param.kind);
  for (char& c : name)
  {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

} // namespace redu::test
