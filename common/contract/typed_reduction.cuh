// Turns a reduction written as C++ templates over <T, ReduceOp> into a registered Reduction.
//
// An implementation derives from TypedReduction<Self, Types, Ops> and provides the two hooks under
// the names every level uses (Reduction's private virtuals, the callers' redu::workspace_bytes and
// redu::run), templated on the element type and operator:
//   template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const;
//   template <class T, class ReduceOp> Status run(const Problem&, Workspace, cudaStream_t) const;
// The element types and operators it lists are the only ones instantiated, and they become the
// dtypes/ops its Info declares, so what is compiled and what is claimed cannot drift apart.
#pragma once

#include "common/contract/ops.cuh"
#include "common/contract/reduction.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace redu
{

template <class... Ts>
struct TypeList
{};
template <class... Ops>
struct OpList
{};

// Whether T is one of a list's types (a compile-time test, e.g. argext's has_key64).
template <class T, class... Ts> constexpr bool listed(TypeList<Ts...>)
{
  return (std::is_same_v<T, Ts> || ...);
}

// The four full-width types. An implementation that reads halves lists them itself, e.g.
// TypeList<__nv_bfloat16, __half>, and writes its sums through Output<T, ReduceOp>.
using AllTypes = TypeList<std::int32_t, std::int64_t, float, double>;
using AllOps   = OpList<SumOp, MinOp, MaxOp>;

// The C++ type of p.output for elements T under ReduceOp (output_dtype in problem.hpp): float for a
// bf16/f16 sum or sum_squares, T otherwise.
template <class T, class ReduceOp>
using Output = std::conditional_t<output_dtype(dtype_of<T>(), ReduceOp::id) == dtype_of<T>(), T, float>;

template <class T>
struct Tag
{
  using type = T;
};

// Calls f(Tag<T>{}, Tag<ReduceOp>{}) for the (dtype, op) of the problem, if listed. It sits in every
// timed call, so, like validate(), it builds its message only on refusal: the success path allocates nothing.
template <class F, class... Ts, class... Ops>
Status dispatch(DType dtype, Op op, TypeList<Ts...>, OpList<Ops...>, F&& f)
{
  Status result = Status::success();
  auto try_type = [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    if (dtype_of<T>() != dtype)
    {
      return false;
    }
    auto try_op = [&](auto op_tag) {
      if (decltype(op_tag)::type::id != op)
      {
        return false;
      }
      static_cast<void>(result = f(Tag<T>{}, op_tag));
      return true;
    };
    return (try_op(Tag<Ops>{}) || ...);
  };
  if (!(try_type(Tag<Ts>{}) || ...))
  {
    return Status::invalid(std::string("not compiled for ") + to_string(dtype) + "/" + to_string(op));
  }
  return result;
}

template <class Derived, class Types = AllTypes, class Ops = AllOps>
class TypedReduction : public Reduction
{
public:
  // `info` carries everything but dtypes and ops, which come from the type lists.
  explicit TypedReduction(Info info)
      : info_(std::move(info))
  {
    info_.dtypes = dtypes(Types{});
    info_.ops    = ops(Ops{});
  }

  const Info& info() const final { return info_; }

private:
  Status workspace_bytes(const Problem& p, std::size_t& bytes) const final
  {
    return dispatch(p.dtype, p.op, Types{}, Ops{}, [&](auto t, auto o) {
      bytes = self().template workspace_bytes<typename decltype(t)::type, typename decltype(o)::type>(p);
      return Status::success();
    });
  }

  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const final
  {
    return dispatch(p.dtype, p.op, Types{}, Ops{}, [&](auto t, auto o) {
      return self().template run<typename decltype(t)::type, typename decltype(o)::type>(p, ws, stream);
    });
  }

  const Derived& self() const { return static_cast<const Derived&>(*this); }
  template <class... Ts>
  static std::vector<DType> dtypes(TypeList<Ts...>)
  {
    return {dtype_of<Ts>()...};
  }
  template <class... Os>
  static std::vector<Op> ops(OpList<Os...>)
  {
    return {Os::id...};
  }

  Info info_;
};

} // namespace redu
