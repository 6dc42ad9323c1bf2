// What every course exercise shares on the host: whether the student has written its kernel, and the
// message every call returns until then. Plain C++ (no device code), so host tests ask it without a GPU.
#pragma once

#include "common/contract/status.hpp"

#include <string>

namespace redu::exercise
{

// Implemented by every exercise (Exercise in exercise.cuh); tests reach it from the registry with
// dynamic_cast<const Gradable*>.
class Gradable
{
public:
  virtual ~Gradable() = default;
  // Success once the exercise's file says its kernel is written (kernel_written = true); until then the
  // error that run() returns before it launches anything.
  virtual Status written() const = 0;
  // The exercise's file, relative to the repository root: the one the student edits.
  virtual const std::string& file() const = 0;
};

// The refusal of an exercise whose kernel is not written yet: it names the exercise, its file, and where
// in the file the work goes.
inline Status not_written_yet(const std::string& name, const std::string& file)
{
  return Status::invalid(name + ": the kernel body is not written yet (" + file +
                         ", between the TODO markers; then set kernel_written = true)");
}

} // namespace redu::exercise
