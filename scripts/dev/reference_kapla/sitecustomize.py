# sympy 1.11 adaptation for the reference (pinned to sympy 1.4): Piecewise canonicalizes its
# conditions, and a condition Eq(False, symbol) has a Boolean lhs that 1.11's helper cannot
# take apart. Such a relation is already canonical: return it as it is.
import sympy.core.relational as _rel
import sympy.functions.elementary.piecewise as _pw
_orig = _rel._canonical_coeff
def _canonical_coeff(rel):
    c = rel.canonical
    if c.is_Relational and (c.lhs.is_Boolean or c.rhs.is_Boolean):
        return c
    return _orig(rel)
_pw._canonical_coeff = _canonical_coeff
