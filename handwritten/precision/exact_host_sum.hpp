// The exact sum of exact_limbs.cuh, accumulated on the host one term at a time: the reference the GPU's
// precision.exact_sum must match bit for bit (tests/reproducible_sum_test.cpp), the subject of the host
// tests of the limb arithmetic itself (tests/exact_limbs_test.cpp), and the accuracy study's reference
// (studies/accuracy_study.cpp).
#pragma once

#include "handwritten/precision/exact_limbs.cuh"

#include <cmath>

#include <cstdint>
#include <vector>

namespace redu::precision
{

template <class T> class ExactHostSum
{
public:
  static constexpr int L = ExactFormat<T>::limbs;

  void add(T x)
  {
    const Term<T> t = term_of(x);
    non_finite_ |= t.non_finite;
    add_pieces<typename ExactFormat<T>::Magnitude>(t.limb, t.value, [&](int j, long long v) { limbs_[j] += v; });
    if (++terms_ % (1 << 20) == 0) // each piece is below 2^32: carry long before 2^31 of them
    {
      normalize<T>(limbs_);
    }
  }
  void add(const std::vector<T>& values)
  {
    for (T x : values)
    {
      add(x);
    }
  }
  // Another partial sum's integer: what the GPU's blocks do with their limbs.
  void add(const ExactHostSum& other)
  {
    long long theirs[L];
    for (int j = 0; j < L; ++j)
    {
      theirs[j] = other.limbs_[j];
    }
    normalize<T>(theirs);
    normalize<T>(limbs_);
    for (int j = 0; j < L; ++j)
    {
      limbs_[j] += theirs[j];
    }
    non_finite_ |= other.non_finite_;
  }
  T rounded() const
  {
    long long copy[L];
    for (int j = 0; j < L; ++j)
    {
      copy[j] = limbs_[j];
    }
    return round_exact<T>(copy, non_finite_);
  }
  // The exact sum to about twice T's precision: the rounded sum plus the rounded remainder, which the
  // limbs give exactly by adding the negated rounded sum (finite sums only).
  long double to_long_double() const
  {
    const T high = rounded();
    if (!std::isfinite(high))
    {
      return high;
    }
    ExactHostSum remainder = *this;
    remainder.add(-high);
    return static_cast<long double>(high) + static_cast<long double>(remainder.rounded());
  }

private:
  long long limbs_[L] = {};
  unsigned non_finite_ = 0;
  std::int64_t terms_  = 0;
};

template <class T> T exact_host_sum(const std::vector<T>& values)
{
  ExactHostSum<T> sum;
  sum.add(values);
  return sum.rounded();
}

} // namespace redu::precision
