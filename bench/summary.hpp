// The table printed after a sweep: GB/s per implementation at the headline sizes and shapes, with the
// ratio to the CUB baseline measured in the same run.
#pragma once

#include "harness.hpp"

#include <ostream>

namespace redu::bench
{

void print_summary(std::ostream& out, const BenchHarness& harness);

} // namespace redu::bench
