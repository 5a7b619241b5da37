// Directive helpers and the printer (kapla-spec.md §1.2; the paper's listing form).
#include "search/kapla/directives.hpp"

#include <sstream>

namespace kapla::search::kapla {

std::int64_t tensor_size(model::ArrayMapping m, KindClass k, const DimExtents& t, DataCategory d) {
  if (d == DataCategory::Fil && (k == KindClass::Local || k == KindClass::LocalBackH)) return 0;
  const auto dims = tensor_dims(m)[d];
  std::int64_t s = 1;
  for (std::size_t i = 0; i < kNumDims; ++i) {
    const auto dim = static_cast<Dim>(i);
    if (!dims.contains(dim)) continue;
    // Depthwise filters hold one channel per output channel: K*R*S, not C*K*R*S (§10.10).
    if (dim == Dim::C && d == DataCategory::Fil && is_channelwise_class(k)) continue;
    s *= t[dim] > 0 ? t[dim] : 1;
  }
  return s;
}

namespace {

void put_pairs(std::ostringstream& os, const std::array<DimStep, 2>& p, int n) {
  for (int i = 0; i < n; ++i) {
    if (i) os << ", ";
    os << dim_name(p[static_cast<std::size_t>(i)].dim)
       << "+=" << p[static_cast<std::size_t>(i)].step;
  }
}

void put_level(std::ostringstream& os, std::string_view name, const LevelDirectives& lv,
               model::ArrayMapping m, KindClass k) {
  os << "  " << name << "\n    tensor";
  for (auto d : all_values<DataCategory>()) {
    const auto dims = tensor_dims(m)[d];
    if (tensor_size(m, k, lv.tensor, d) == 0) continue;
    os << ' ' << name_of(d) << '(';
    bool first = true;
    for (std::size_t i = 0; i < kNumDims; ++i) {
      const auto dim = static_cast<Dim>(i);
      if (!dims.contains(dim) || lv.tensor[dim] <= 0) continue;
      if (dim == Dim::C && d == DataCategory::Fil && is_channelwise_class(k)) continue;
      os << (first ? "" : ", ") << dim_name(dim) << '=' << lv.tensor[dim];
      first = false;
    }
    os << ')';
  }
  os << "\n    stack ";
  if (lv.stacks.empty()) os << " -";
  for (const auto& s : lv.stacks) {
    os << " (";
    put_pairs(os, s.pairs, s.num_pairs);
    os << ", " << s.repl << ')';
  }
  os << "\n    update";
  if (lv.updates.empty()) os << " -";
  for (const auto& u : lv.updates) {
    os << " (";
    put_pairs(os, u.pairs, u.num_pairs);
    os << ")x" << u.count;
  }
  os << '\n';
}

}  // namespace

std::string format_directives(const DirectiveSchedule& s) {
  std::ostringstream os;
  os << s.layer_name << " ["
     << (s.mapping == model::ArrayMapping::RowStationary ? "row-stationary" : "systolic")
     << ", unit_ops=" << s.unit_ops << "]\n";
  put_level(os, "GBUF", s.gbuf, s.mapping, s.kind);
  put_level(os, "REGF", s.regf, s.mapping, s.kind);
  return os.str();
}

}  // namespace kapla::search::kapla
