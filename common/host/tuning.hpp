// Tuning as data: launch-shape values measured per GPU model, read at run time. A kernel family asks
// for a value by name, with the default its shape header documents; the table of the current GPU model,
// tuning/<gpu-slug>.txt (written by scripts/tune_shapes.py on that GPU, one "name value" per line, '#'
// comments), overrides it. So a new GPU gets measured values by running the tuner and committing its
// table, with no code change; a GPU without a table runs on the documented defaults.
// REDU_TUNING_FILE=<path> reads that file instead (the tuner's candidates); set but empty, no table.
// Each caller keeps the answer per device (cached_per_device), so a launch pays nothing for it.
#pragma once

#include "common/contract/status.hpp"

#include <map>
#include <string>

namespace redu
{

using TuningTable = std::map<std::string, long long>;

// Parses "name value" lines; blank lines and '#' comments are skipped. A malformed line is an error
// naming the line, so a broken table never silently falls back to the defaults.
Status parse_tuning_table(const std::string& text, TuningTable& table);

// The value called `name` for the current device, or `fallback` when its table has none.
Status tuned_value(const std::string& name, long long fallback, long long& value);

// The current device's table for a results file's provenance: where it was read from and its values
// ("tuning/nvidia-h200.txt: argext.waves 4, modern.waves 64"), or "none (the documented defaults)".
Status tuning_in_use(std::string& description);

} // namespace redu
