// pi as the seed meant it, with any registered reduction: calcRectangles writes n floats, then the
// reduction looked up by name runs through redu::run (validated, workspace from the contract).
#include "common/host/device_buffer.hpp"
#include "common/contract/reduction.hpp"
#include "studies/pi/device_sum_method.hpp"

#include <algorithm>
#include <limits>

namespace redu::pi
{
namespace
{

class RegisteredMethod final : public DeviceSumMethod
{
public:
  explicit RegisteredMethod(const Reduction& impl)
      : DeviceSumMethod("rectangles+" + impl.info().name)
      , impl_(impl)
  {}

  // The reduction's limit, and calcRectangles' one thread per rectangle within gridDim.x.
  std::int64_t max_n() const override
  {
    constexpr std::int64_t rectangles_max_n = std::int64_t{std::numeric_limits<std::int32_t>::max()} * 256;
    return std::min(impl_.info().max_n, rectangles_max_n);
  }

  Status prepare(std::int64_t n) override
  {
    REDU_TRY(prepare_sum(n));
    REDU_TRY(rectangles_.allocate(static_cast<std::size_t>(n) * sizeof(float)));
    problem_          = Problem{};
    problem_.kind     = Kind::full;
    problem_.dtype    = DType::f32;
    problem_.op       = Op::sum;
    problem_.n        = n;
    problem_.segments = 1;
    problem_.input    = rectangles_.data();
    problem_.output   = sum();
    return allocate_workspace(impl_, problem_, workspace_buffer_, workspace_);
  }

  Status enqueue(cudaStream_t stream) override
  {
    REDU_TRY(launch_rectangles(rectangles_.as<float>(), problem_.n, stream));
    return run(impl_, problem_, workspace_, stream);
  }

private:
  const Reduction& impl_;
  DeviceBuffer rectangles_;
  DeviceBuffer workspace_buffer_;
  Problem problem_;
  Workspace workspace_;
};

} // namespace

Status make_registered_method(const std::string& reduction_name, std::unique_ptr<Method>& method)
{
  method.reset();
  const Reduction* impl = find(reduction_name);
  if (impl == nullptr)
  {
    return Status::invalid("pi: no registered reduction named '" + reduction_name + "'");
  }
  const Info& info = impl->info();
  if (!info.supports(Kind::full) || !info.supports(DType::f32) || !info.supports(Op::sum))
  {
    return Status::invalid("pi: " + reduction_name + " does not reduce a full f32 array with sum");
  }
  method = std::make_unique<RegisteredMethod>(*impl);
  return Status::success();
}

} // namespace redu::pi
