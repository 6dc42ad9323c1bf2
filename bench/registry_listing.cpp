#include "registry_listing.hpp"

#include "common/contract/reduction.hpp"
#include "common/host/device_info.hpp"

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

// The required features and the architecture they need: "sm_90: thread_block_clusters", or "any".
std::string needs(const Requirements& r)
{
  if (r.arch() == 0 && r.required.empty())
  {
    return "any";
  }
  std::string text = "sm_" + std::to_string(r.arch());
  const char* separator = ": ";
  for (Feature feature : r.required)
  {
    text += separator + std::string(to_string(feature));
    separator = ",";
  }
  return text;
}

// Whether it runs on the current GPU with this binary.
std::string here(const Reduction& impl, const std::string& no_gpu)
{
  if (!no_gpu.empty())
  {
    return "no GPU";
  }
  const Availability verdict = available_here(impl);
  return verdict.ok ? "yes" : "no: " + verdict.reason;
}

} // namespace

// The architectures of the portable list (cmake/CudaArchitectures.cmake), oldest first.
const int portable_architectures[] = {75, 80, 86, 89, 90, 100, 120};

void print_registry(std::ostream& out)
{
  const std::string no_gpu = no_gpu_reason();
  out << "name\ttypes\tops\tkinds\tdeterminism\tidea\tneeds\there\n";
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    out << info.name << "\t" << joined(info.dtypes) << "\t" << joined(info.ops) << "\t" << joined(info.kinds) << "\t"
        << determinism(info) << "\t" << info.idea << "\t" << needs(info.needs) << "\t" << here(*impl, no_gpu) << "\n";
  }
  // What the CCCL this build found lacks: comment lines, so that a reader of the first column sees only
  // names that can be run.
  for (const AbsentReduction& absent : absent_from_build())
  {
    out << "# not in this build: " << absent.name << ": " << absent.why << "\n";
  }
}

void print_requirements(std::ostream& out)
{
  out << "name\tneeds\toptional";
  for (int arch : portable_architectures)
  {
    out << "\tsm_" << arch;
  }
  out << "\n";
  for (const Reduction* impl : registry())
  {
    const Requirements& r = impl->info().needs;
    out << impl->info().name << "\t" << needs(r) << "\t" << (r.optional.empty() ? "-" : joined(r.optional));
    for (int arch : portable_architectures)
    {
      // A GPU of that architecture running code compiled for it, with every launch attribute its
      // architecture brings (clusters from sm_90; cooperative launches on every one of them).
      Target target;
      target.device_name        = "sm_" + std::to_string(arch);
      target.device_arch        = arch;
      target.code_arch          = arch;
      target.binary_arch        = arch;
      target.cooperative_launch = true;
      target.cluster_launch     = arch >= 90;
      std::string cell;
      if (!unavailable_reason(r, target).empty())
      {
        cell = "no";
      }
      else
      {
        cell = "yes";
        std::string fallback;
        for (Feature feature : r.optional)
        {
          if (!feature_active(feature, target))
          {
            fallback += (fallback.empty() ? "" : ",") + std::string(to_string(feature));
          }
        }
        if (!fallback.empty())
        {
          cell += ", fallback for " + fallback;
        }
      }
      out << "\t" << cell;
    }
    out << "\n";
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
