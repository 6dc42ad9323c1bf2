#include "sweep.hpp"

#include <algorithm>
#include <random>

namespace redu::bench
{

std::string BenchCase::name() const
{
  return std::string(to_string(kind)) + "/" + impl->info().name + "/" + to_string(dtype) + "/" + to_string(op) + "/"
       + shape;
}

std::vector<std::pair<std::int64_t, std::int64_t>> equal_row_shapes(std::int64_t total)
{
  // 1 x 2^28, 8 x 2^25, 2048 x 2^17, 2^16 x 2^12, 2^20 x 256, 2^22 x 64, 2^23 x 32, 2^25 x 8 at 2^28.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  for (std::int64_t row_length : {total, total / 8, total / 2048, std::int64_t{4096}, std::int64_t{256},
                                  std::int64_t{64}, std::int64_t{32}, std::int64_t{8}})
  {
    if (row_length >= 1 && row_length <= total)
    {
      shapes.emplace_back(total / row_length, row_length);
    }
  }
  return shapes;
}

std::vector<std::int64_t> lognormal_offsets(std::int64_t total)
{
  // Median length e^6 ~ 400, heavy tail (sigma 2): most segments are short, most elements sit in long ones.
  std::mt19937_64 rng(20261122);
  std::lognormal_distribution<double> length(6.0, 2.0);
  std::vector<std::int64_t> offsets = {0};
  while (offsets.back() < total)
  {
    const auto len = static_cast<std::int64_t>(length(rng));
    offsets.push_back(std::min(total, offsets.back() + len));
  }
  return offsets;
}

namespace
{
template <class T>
std::vector<T> chosen(const std::vector<T>& requested, const std::vector<T>& sweep_default, const std::vector<T>& declared)
{
  const std::vector<T>& wanted = requested.empty() ? sweep_default : requested;
  std::vector<T> out;
  for (T value : wanted)
  {
    if (std::find(declared.begin(), declared.end(), value) != declared.end())
    {
      out.push_back(value);
    }
  }
  return out;
}
} // namespace

// The batched shapes of sampling from a language model: one row of logits per sequence (1 to 4096
// sequences), as wide as the vocabulary of three model families (32000, 128256, 151936 tokens); the
// argmax of each row is the next token.
std::vector<std::pair<std::int64_t, std::int64_t>> sampling_shapes()
{
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  for (std::int64_t rows : {1, 8, 64, 512, 4096})
  {
    for (std::int64_t vocabulary : {32000, 128256, 151936})
    {
      shapes.emplace_back(rows, vocabulary);
    }
  }
  return shapes;
}

namespace
{
bool is_sum(Op op)
{
  return op == Op::sum || op == Op::sum_squares;
}

// The default sweep times every operator, at fewer sizes for those that are not sums so that it stays
// within a device lease: full arrays of f32 and i32 at 2^16, 2^18, ..., 2^30 for min, max, argmin and
// argmax; batched and segmented f32 for sum, max and argmax, argmax also on the sampling shapes. The
// sums of f32, i32 and f64 keep every size; bf16 and f16 (halves) are timed for sum only: full arrays
// at 2^16, 2^18, ..., 2^30, and every batched and segmented shape. Operators or types named on the
// command line get every size.
struct Trim
{
  bool active = false;
  bool keeps(DType dtype, Op op, Kind kind, std::int64_t log2_n) const
  {
    const bool even_from_2_16 = log2_n >= 16 && log2_n % 2 == 0; // the trimmed sizes
    if (active && (dtype == DType::bf16 || dtype == DType::f16))
    {
      return op == Op::sum && (kind != Kind::full || even_from_2_16);
    }
    if (!active || is_sum(op))
    {
      return true;
    }
    if (kind != Kind::full)
    {
      return op == Op::max || op == Op::argmax;
    }
    return (dtype == DType::f32 || dtype == DType::i32) && even_from_2_16;
  }
};

BenchCase shaped(const BenchCase& base, std::int64_t rows, std::int64_t length)
{
  BenchCase c = base;
  c.n         = rows * length;
  c.segments  = rows;
  c.shape     = std::to_string(rows) + "x" + std::to_string(length);
  if (c.kind == Kind::segmented)
  {
    auto offsets = std::make_shared<std::vector<std::int64_t>>();
    for (std::int64_t r = 0; r <= rows; ++r)
    {
      offsets->push_back(r * length);
    }
    c.offsets = offsets;
  }
  return c;
}
} // namespace

std::vector<BenchCase> build_sweep(const Options& o)
{
  const bool full_sweep  = o.sweep == "full";
  const bool quick       = o.sweep == "quick";
  const std::int64_t segmented_total = quick ? (std::int64_t{1} << 22) : (std::int64_t{1} << 28);
  std::vector<DType> full_dtypes = quick ? std::vector<DType>{DType::f32}
                                         : std::vector<DType>{DType::f32, DType::i32, DType::f64, DType::bf16, DType::f16};
  // Every operator (sum_squares because the transform-reduce baselines offer only it); Trim says at
  // which sizes. The quick sweep times sums only.
  std::vector<Op> default_ops = quick ? std::vector<Op>{Op::sum, Op::sum_squares}
                                      : std::vector<Op>(std::begin(all_ops), std::end(all_ops));
  if (full_sweep) // the four full-width types; bf16/f16 only when asked for (--types)
  {
    full_dtypes = {DType::i32, DType::i64, DType::f32, DType::f64};
  }
  const Trim trim{.active = !full_sweep && !quick && o.ops.empty() && o.dtypes.empty()};
  const std::vector<DType> segmented_dtypes = full_sweep ? full_dtypes
                                             : quick    ? std::vector<DType>{DType::f32}
                                                        : std::vector<DType>{DType::f32, DType::bf16, DType::f16};

  auto lognormal = std::make_shared<const std::vector<std::int64_t>>(lognormal_offsets(segmented_total));
  std::vector<BenchCase> cases;
  const auto add = [&](const BenchCase& c, const Info& info) {
    if (c.n <= info.max_n)
    {
      cases.push_back(c);
    }
  };
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    const bool named = std::find(o.impls.begin(), o.impls.end(), info.name) != o.impls.end();
    if (!o.impls.empty() && !named)
    {
      continue;
    }
    for (Kind kind : info.kinds)
    {
      const auto dtypes = chosen(o.dtypes, kind == Kind::full ? full_dtypes : segmented_dtypes, info.dtypes);
      for (DType dtype : dtypes)
      {
        for (Op op : chosen(o.ops, default_ops, info.ops))
        {
          const BenchCase base{impl, dtype, op, kind};
          if (kind == Kind::full)
          {
            for (int k = o.min_log2; k <= o.max_log2; k += quick ? 2 : 1)
            {
              if (!trim.keeps(dtype, op, kind, k))
              {
                continue;
              }
              BenchCase c = base;
              c.n         = std::int64_t{1} << k;
              c.shape     = "n:" + std::to_string(c.n);
              add(c, info);
            }
            continue;
          }
          if (!trim.keeps(dtype, op, kind, 0))
          {
            continue;
          }
          auto shapes = equal_row_shapes(segmented_total);
          if (!quick)
          {
            shapes.emplace_back(2048, 262144); // Lei Mao's experiment: batch 2048 x 262144 floats
          }
          if (!quick && (op == Op::argmax || op == Op::argmin))
          {
            const auto sampling = sampling_shapes();
            shapes.insert(shapes.end(), sampling.begin(), sampling.end());
          }
          for (auto [rows, length] : shapes)
          {
            add(shaped(base, rows, length), info);
          }
          if (kind == Kind::segmented)
          {
            BenchCase c = base;
            c.offsets   = lognormal;
            c.n         = lognormal->back();
            c.segments  = static_cast<std::int64_t>(lognormal->size()) - 1;
            c.shape     = "lognormal:" + std::to_string(c.segments);
            add(c, info);
          }
        }
      }
    }
  }
  return cases;
}

} // namespace redu::bench
