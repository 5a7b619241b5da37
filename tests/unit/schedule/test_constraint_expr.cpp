// The constraint algebra's fast evaluation (detail::evaluate) against its reference,
// substitute(): on every assignment of the symbols of a few expressions of each shape the
// pipeline rules build, evaluate's constant is substitute's, and it declines (nullopt) only
// where a symbol is left free (substitute may still fold that to a constant: equal branches).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>

#include "schedule/constraint_expr.hpp"

namespace kapla::schedule::detail {
namespace {

// Symbols 0 and 1 are integers, 2 and 3 booleans (as the pipeline rules' topbat / fbofm).
constexpr int kInts = 2;

std::vector<ExprPtr> expressions() {
  const auto i0 = make_sym(0), i1 = make_sym(1), b2 = make_sym(2), b3 = make_sym(3);
  return {
      make_int(7),
      make_bool(true),
      i0,
      b2,
      make_eq(b2, true),
      make_eq(b3, false),
      make_piecewise(i0, make_eq(b2, true), make_int(1)),
      make_piecewise(make_int(1), make_eq(b2, false), i1),
      make_piecewise(make_piecewise(i0, b3, i1), make_eq(b2, true), make_int(4)),
      make_piecewise(b3, make_eq(b2, true), make_bool(false)),
      make_piecewise(make_eq(b3, true), b2, make_eq(b3, false)),
  };
}

std::optional<ConstValue> constant_of(const ExprPtr& e) {
  if (e->kind == Expr::Kind::Int) return ConstValue{false, e->ival};
  if (e->kind == Expr::Kind::Bool) return ConstValue{true, e->bval ? 1 : 0};
  return std::nullopt;
}

TEST(ConstraintExpr, EvaluateIsSubstitutesConstant) {
  int checked = 0, declined = 0;
  for (const auto& e : expressions()) {
    // Each symbol: free (-1) or one of a few values (0/1 for booleans).
    for (int a0 = -1; a0 <= 3; ++a0)
      for (int a1 = -1; a1 <= 3; ++a1)
        for (int a2 = -1; a2 <= 1; ++a2)
          for (int a3 = -1; a3 <= 1; ++a3) {
            const int assign[4] = {a0, a1, a2, a3};
            std::vector<std::optional<ConstValue>> values(4);
            std::map<int, ExprPtr> subs;
            for (int s = 0; s < 4; ++s) {
              if (assign[s] < 0) continue;
              const bool is_bool = s >= kInts;
              values[static_cast<std::size_t>(s)] = ConstValue{is_bool, assign[s]};
              subs[s] = is_bool ? make_bool(assign[s] != 0) : make_int(assign[s]);
            }
            const auto fast = evaluate(e, values);
            const auto ref = constant_of(substitute(e, subs));
            if (fast) {
              ASSERT_TRUE(ref.has_value());
              EXPECT_EQ(fast->is_bool, ref->is_bool);
              EXPECT_EQ(fast->value, ref->value);
            } else {
              // Declined: only where a symbol is free (the enumeration gives every symbol a
              // value, so it never falls back to substitute there).
              EXPECT_TRUE(a0 < 0 || a1 < 0 || a2 < 0 || a3 < 0);
              ++declined;
            }
            ++checked;
          }
  }
  EXPECT_GT(declined, 0);
  EXPECT_GT(checked - declined, 500);
}

TEST(ConstraintExpr, EvaluateLeavesAFreeSymbolToSubstitute) {
  // Symbol 5 is beyond the values given: free.
  const std::vector<std::optional<ConstValue>> values(2, ConstValue{false, 3});
  EXPECT_FALSE(evaluate(make_sym(5), values).has_value());
  EXPECT_EQ(evaluate(make_sym(1), values)->value, 3);
}

}  // namespace
}  // namespace kapla::schedule::detail
