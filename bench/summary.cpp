#include "summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace redu::bench
{
namespace
{

// What every cell is compared with: the fastest CUB variant measured for the same problem.
double best_cub(const std::map<std::string, double>& by_impl)
{
  double best = 0;
  for (const auto& [impl, gbps] : by_impl)
  {
    if (impl.rfind("cub.", 0) == 0)
    {
      best = std::max(best, gbps);
    }
  }
  return best;
}

std::string cell(double gbps, double baseline_gbps)
{
  char text[48];
  if (baseline_gbps > 0)
  {
    std::snprintf(text, sizeof text, "%7.0f x%.2f", gbps, gbps / baseline_gbps);
  }
  else
  {
    std::snprintf(text, sizeof text, "%7.0f      ", gbps);
  }
  return text;
}

} // namespace

void print_summary(std::ostream& out, const BenchHarness& harness)
{
  const DeviceInfo& d = harness.gpu().device;
  char line[256];
  std::snprintf(line, sizeof line,
                "\n%s: peak %.0f GB/s, measured copy %.0f GB/s. Cells: GB/s (%s) and ratio to the fastest CUB "
                "variant.\n",
                d.name.c_str(), harness.gpu().peak_gbps, harness.gpu().copy_gbps,
                harness.timings().front().key().c_str());
  out << line;

  // (kind, dtype, op) -> shape -> impl -> GB/s
  using Group = std::tuple<Kind, DType, Op>;
  std::map<Group, std::map<std::string, std::map<std::string, double>>> table;
  std::map<Group, std::vector<std::string>> shape_order;
  for (const Record& r : harness.records())
  {
    const Group g{r.c.kind, r.c.dtype, r.c.op};
    auto& shapes = shape_order[g];
    if (std::find(shapes.begin(), shapes.end(), r.c.shape) == shapes.end())
    {
      shapes.push_back(r.c.shape);
    }
    table[g][r.c.shape][r.c.impl->info().name] = r.headline_gbps;
  }

  const std::set<std::string> headline = {"n:65536", "n:1048576", "n:16777216", "n:67108864", "n:268435456",
                                          "n:1073741824"};
  for (const auto& [group, by_shape] : table)
  {
    const auto [kind, dtype, op] = group;
    std::vector<std::string> columns;
    for (const std::string& shape : shape_order[group])
    {
      if (kind != Kind::full || headline.count(shape) > 0)
      {
        columns.push_back(shape);
      }
    }
    std::set<std::string> impls;
    for (const auto& [shape, by_impl] : by_shape)
    {
      for (const auto& [impl, gbps] : by_impl)
      {
        impls.insert(impl);
      }
    }
    out << "\n" << to_string(kind) << " " << to_string(dtype) << " " << to_string(op) << "\n";
    std::snprintf(line, sizeof line, "%-34s", "implementation");
    out << line;
    for (const std::string& shape : columns)
    {
      std::snprintf(line, sizeof line, " %16s", shape.c_str());
      out << line;
    }
    out << "\n";
    for (const std::string& impl : impls)
    {
      std::snprintf(line, sizeof line, "%-34s", impl.c_str());
      out << line;
      for (const std::string& shape : columns)
      {
        const auto& by_impl = by_shape.at(shape);
        const auto it       = by_impl.find(impl);
        const std::string text = it == by_impl.end() ? std::string("-") : cell(it->second, best_cub(by_impl));
        std::snprintf(line, sizeof line, " %16s", text.c_str());
        out << line;
      }
      out << "\n";
    }
  }
  for (const std::string& skipped : harness.skipped())
  {
    out << "skipped: " << skipped << "\n";
  }
}

} // namespace redu::bench
