// Spec: nn_dataflow-spec.md §9.6 (sympy semantics the constraint rules rely on).
#include "schedule/constraint_expr.hpp"

#include "core/errors.hpp"

namespace kapla::schedule::detail {

ExprPtr make_int(std::int64_t v) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Int;
  e->ival = v;
  return e;
}

ExprPtr make_bool(bool v) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Bool;
  e->bval = v;
  return e;
}

ExprPtr make_sym(int id) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Sym;
  e->sym = id;
  return e;
}

ExprPtr make_eq(const ExprPtr& x, bool v) {
  if (x->kind == Expr::Kind::Bool) return make_bool(x->bval == v);
  KAPLA_ASSERT(x->kind != Expr::Kind::Int, "constraint expression: Eq of an integer and a bool");
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Eq;
  e->a = x;
  e->bval = v;
  return e;
}

ExprPtr make_piecewise(const ExprPtr& a, const ExprPtr& cond, const ExprPtr& b) {
  if (is_true(cond)) return a;
  if (is_false(cond)) return b;
  // sympy merges pieces with equal values (their conditions are OR-ed with True).
  if (structurally_equal(a, b)) return a;
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Piecewise;
  e->a = a;
  e->cond = cond;
  e->b = b;
  return e;
}

bool structurally_equal(const ExprPtr& x, const ExprPtr& y) {
  if (x == y) return true;
  if (x->kind != y->kind) return false;
  switch (x->kind) {
    case Expr::Kind::Int:
      return x->ival == y->ival;
    case Expr::Kind::Bool:
      return x->bval == y->bval;
    case Expr::Kind::Sym:
      return x->sym == y->sym;
    case Expr::Kind::Eq:
      return x->bval == y->bval && structurally_equal(x->a, y->a);
    case Expr::Kind::Piecewise:
      return structurally_equal(x->a, y->a) && structurally_equal(x->cond, y->cond) &&
             structurally_equal(x->b, y->b);
  }
  return false;
}

bool is_true(const ExprPtr& e) { return e->kind == Expr::Kind::Bool && e->bval; }
bool is_false(const ExprPtr& e) { return e->kind == Expr::Kind::Bool && !e->bval; }
bool is_const(const ExprPtr& e) {
  return e->kind == Expr::Kind::Bool || e->kind == Expr::Kind::Int;
}

bool truthy(const ExprPtr& e) {
  if (e->kind == Expr::Kind::Bool) return e->bval;
  if (e->kind == Expr::Kind::Int) return e->ival != 0;
  return true;
}

void free_symbols(const ExprPtr& e, std::set<int>& out) {
  switch (e->kind) {
    case Expr::Kind::Sym:
      out.insert(e->sym);
      break;
    case Expr::Kind::Eq:
      free_symbols(e->a, out);
      break;
    case Expr::Kind::Piecewise:
      free_symbols(e->a, out);
      free_symbols(e->cond, out);
      free_symbols(e->b, out);
      break;
    default:
      break;
  }
}

ExprPtr substitute(const ExprPtr& e, const std::map<int, ExprPtr>& subs) {
  switch (e->kind) {
    case Expr::Kind::Sym: {
      auto it = subs.find(e->sym);
      return it == subs.end() || !it->second ? e : it->second;
    }
    case Expr::Kind::Eq:
      return make_eq(substitute(e->a, subs), e->bval);
    case Expr::Kind::Piecewise:
      return make_piecewise(substitute(e->a, subs), substitute(e->cond, subs),
                            substitute(e->b, subs));
    default:
      return e;
  }
}

std::optional<ConstValue> evaluate(const ExprPtr& e,
                                   const std::vector<std::optional<ConstValue>>& values) {
  switch (e->kind) {
    case Expr::Kind::Int:
      return ConstValue{false, e->ival};
    case Expr::Kind::Bool:
      return ConstValue{true, e->bval ? 1 : 0};
    case Expr::Kind::Sym: {
      const auto i = static_cast<std::size_t>(e->sym);
      if (e->sym < 0 || i >= values.size()) return std::nullopt;
      return values[i];
    }
    case Expr::Kind::Eq: {
      // make_eq folds a Bool operand only (an Int one is an internal error there).
      const auto x = evaluate(e->a, values);
      if (!x || !x->is_bool) return std::nullopt;
      return ConstValue{true, (x->value != 0) == e->bval ? 1 : 0};
    }
    case Expr::Kind::Piecewise: {
      // make_piecewise picks a branch on a constant Bool condition.
      const auto c = evaluate(e->cond, values);
      if (!c || !c->is_bool) return std::nullopt;
      return evaluate(c->value != 0 ? e->a : e->b, values);
    }
  }
  return std::nullopt;
}

}  // namespace kapla::schedule::detail
