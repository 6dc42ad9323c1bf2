// What `reduce_bench --list` prints and how a mistyped implementation name is answered: both need only
// the registry, so they work without a GPU.
#pragma once

#include <ostream>
#include <string>

namespace redu::bench
{

// One line per registered implementation, tab-separated: name, element types, operators, kinds,
// determinism, idea, needs (its required features and architecture, common/contract/requirements.hpp)
// and here (yes, or no and why, on the current GPU with this binary; "no GPU" without one). The name
// comes first, so `cut -f1` gives the names.
void print_registry(std::ostream& out);

// One line per registered implementation and one column per architecture of the portable list (sm_75
// ... sm_120), from the declared requirements alone (no GPU needed): "yes", "yes, fallback for X" where an
// optional feature is missing, or "no" where a required one is. Assumes code compiled for that
// architecture (SASS or PTX of it); what a JIT-compiled older PTX does is the column of its architecture.
void print_requirements(std::ostream& out);

// The registered (or exhibit) name nearest to `name` by edit distance, if it is close enough to be a
// likely typo; empty otherwise.
std::string closest_name(const std::string& name);

} // namespace redu::bench
