// The registration every course exercise shares. An exercise derives from Exercise<Self, Types, Ops>
// instead of TypedReduction, and provides, like any implementation (docs/contract.md),
//   template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const;
// and, under another name, the launch:
//   template <class T, class ReduceOp> Status launch(const Problem&, Workspace, cudaStream_t) const;
// run() refuses every call with the message of not_written_yet() (exercise.hpp) until the exercise's file
// sets kernel_written = true, so a kernel left blank is never launched: the harness and the benchmark
// report the message instead of a wrong result or a crash.
#pragma once

#include "common/contract/typed_reduction.cuh"
#include "exercises/exercise.hpp"

#include <string>
#include <utility>

namespace redu::exercise
{

template <class Derived, class Types = AllTypes, class Ops = AllOps>
class Exercise : public TypedReduction<Derived, Types, Ops>, public Gradable
{
public:
  // `info` as for any implementation; its role is Role::exercise and its family "exercise", whatever it says.
  Exercise(Info info, std::string file, bool kernel_written)
    : TypedReduction<Derived, Types, Ops>(as_exercise(std::move(info)))
    , file_(std::move(file))
    , kernel_written_(kernel_written)
  {}

  Status written() const final
  {
    return kernel_written_ ? Status::success() : not_written_yet(this->info().name, file_);
  }
  const std::string& file() const final { return file_; }

  // The hook TypedReduction calls: refuses before anything is launched until the kernel is written.
  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    REDU_TRY(written());
    return static_cast<const Derived&>(*this).template launch<T, ReduceOp>(p, ws, stream);
  }

private:
  static Info as_exercise(Info info)
  {
    info.role   = Role::exercise;
    info.family = "exercise";
    return info;
  }

  std::string file_;
  bool kernel_written_;
};

} // namespace redu::exercise
