// Internal to studies/pi: what the methods whose float sum ends in device memory share.
#pragma once

#include "common/host/device_buffer.hpp"
#include "studies/pi/pi.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace redu::pi
{

// n must be at least 1 (pi from no rectangle is 0 / 0) and within the method's limit.
Status check_n(const std::string& method, std::int64_t n, std::int64_t max_n);

class DeviceSumMethod : public Method
{
public:
  explicit DeviceSumMethod(std::string name)
      : name_(std::move(name))
  {}
  const std::string& name() const override { return name_; }
  Status fetch(cudaStream_t stream, double& pi) override;

protected:
  // Checks n against max_n(), remembers it and allocates the one-float result.
  Status prepare_sum(std::int64_t n);
  std::int64_t n() const { return n_; }
  float* sum() const { return sum_.as<float>(); }

private:
  std::string name_;
  std::int64_t n_ = 0;
  DeviceBuffer sum_;
};

} // namespace redu::pi
