// What `reduce_bench --list` prints and how a mistyped implementation name is answered: both need only
// the registry, so they work without a GPU.
#pragma once

#include <ostream>
#include <string>

namespace redu::bench
{

// One line per registered implementation, tab-separated: name, element types, operators, kinds,
// determinism, idea. The name comes first, so `cut -f1` gives the names.
void print_registry(std::ostream& out);

// The registered (or exhibit) name nearest to `name` by edit distance, if it is close enough to be a
// likely typo; empty otherwise.
std::string closest_name(const std::string& name);

} // namespace redu::bench
