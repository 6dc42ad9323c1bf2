#include "registry_listing.hpp"

#include "common/contract/reduction.hpp"

#include <algorithm>
#include <vector>

namespace redu::bench
{
namespace
{

template <class T>
std::string joined(const std::vector<T>& values)
{
  std::string text;
  for (const T& value : values)
  {
    text += (text.empty() ? "" : ",") + std::string(to_string(value));
  }
  return text;
}

// Its determinism classes (common/contract/reduction.hpp): one word when every (type, operator) it
// declares has the same, else each class with its pairs, "not_guaranteed: f32/sum f64/sum; ...".
std::string determinism(const Info& info)
{
  std::string pairs[3];
  for (DType dtype : info.dtypes)
  {
    for (Op op : info.ops)
    {
      std::string& list = pairs[static_cast<int>(info.determinism_of(dtype, op))];
      list += std::string(list.empty() ? "" : " ") + to_string(dtype) + "/" + to_string(op);
    }
  }
  std::string text;
  int classes = 0;
  for (Determinism d : {Determinism::not_guaranteed, Determinism::run_to_run, Determinism::gpu_to_gpu})
  {
    const std::string& list = pairs[static_cast<int>(d)];
    if (!list.empty())
    {
      text += std::string(text.empty() ? "" : "; ") + to_string(d) + ": " + list;
      ++classes;
    }
  }
  if (classes == 1)
  {
    return text.substr(0, text.find(':'));
  }
  return text;
}

std::size_t edit_distance(const std::string& a, const std::string& b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
  {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i)
  {
    std::size_t diagonal = row[0];
    row[0]               = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
    {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

void print_registry(std::ostream& out)
{
  out << "name\ttypes\tops\tkinds\tdeterminism\tidea\n";
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    out << info.name << "\t" << joined(info.dtypes) << "\t" << joined(info.ops) << "\t" << joined(info.kinds) << "\t"
        << determinism(info) << "\t" << info.idea << "\n";
  }
  // What the CCCL this build found lacks: comment lines, so that a reader of the first column sees only
  // names that can be run.
  for (const AbsentReduction& absent : absent_from_build())
  {
    out << "# not in this build: " << absent.name << ": " << absent.why << "\n";
  }
}

std::string closest_name(const std::string& name)
{
  std::string best;
  std::size_t best_distance = name.size() / 3 + 2; // a few typos, never a different name altogether
  for (const auto* list : {&registry(), &exhibits()})
  {
    for (const Reduction* impl : *list)
    {
      const std::size_t distance = edit_distance(name, impl->info().name);
      if (distance < best_distance)
      {
        best          = impl->info().name;
        best_distance = distance;
      }
    }
  }
  return best;
}

} // namespace redu::bench
