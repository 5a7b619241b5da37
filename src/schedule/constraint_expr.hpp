// The small symbolic algebra the reference's pipeline constraints need (it uses sympy): integer
// and boolean constants, symbols, Eq(expr, bool) and Piecewise((a, cond), (b, True)), with
// sympy's evaluation on construction (constant Eq folds, constant conditions pick a branch, equal
// branches collapse). Spec: nn_dataflow-spec.md §9.6.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kapla::schedule::detail {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind : std::uint8_t { Int, Bool, Sym, Eq, Piecewise };
  Kind kind = Kind::Int;
  std::int64_t ival = 0;  // Int value
  bool bval = false;      // Bool value; Eq's right-hand side
  int sym = -1;           // Sym: symbol id
  ExprPtr a;              // Eq: lhs; Piecewise: value if cond
  ExprPtr cond;           // Piecewise: condition
  ExprPtr b;              // Piecewise: otherwise
};

ExprPtr make_int(std::int64_t v);
ExprPtr make_bool(bool v);
ExprPtr make_sym(int id);
/// Eq(x, v): folds to a Bool when x is a Bool constant.
ExprPtr make_eq(const ExprPtr& x, bool v);
/// Piecewise((a, cond), (b, True)).
ExprPtr make_piecewise(const ExprPtr& a, const ExprPtr& cond, const ExprPtr& b);

bool structurally_equal(const ExprPtr& x, const ExprPtr& y);
bool is_true(const ExprPtr& e);   // the constant True
bool is_false(const ExprPtr& e);  // the constant False
bool is_const(const ExprPtr& e);
/// Python truthiness of a (constant) value; a symbolic value is truthy, as a sympy object is.
bool truthy(const ExprPtr& e);
void free_symbols(const ExprPtr& e, std::set<int>& out);
/// Substitutes symbols (id -> value) and re-evaluates.
ExprPtr substitute(const ExprPtr& e, const std::map<int, ExprPtr>& subs);

/// A constant: an Int, or a Bool (value 0 or 1).
struct ConstValue {
  bool is_bool = false;
  std::int64_t value = 0;
};
/// substitute(e, subs) when that is a constant, found without building it (the constraint
/// enumeration evaluates every argument under every combination of the symbols): `values[id]`
/// is symbol id's value, nullopt or out of range for a symbol left free. nullopt when the
/// result would not be a constant, or when a condition is not a constant Bool: the caller then
/// takes substitute's answer.
std::optional<ConstValue> evaluate(const ExprPtr& e,
                                   const std::vector<std::optional<ConstValue>>& values);

}  // namespace kapla::schedule::detail
