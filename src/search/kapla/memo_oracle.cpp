// MemoOracle (see memo_oracle.hpp).
#include "search/kapla/memo_oracle.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/remembered.hpp"

namespace kapla::search::kapla {

namespace {

// The key of `s` with each level's order as given (exact) or in canonical_order's form.
MemoOracle::Key scheme_key(const CanonicalScheme& s, bool canonical) {
  MemoOracle::Key k{};
  const auto part = s.part.flat_key();
  std::copy(part.begin(), part.end(), k.begin());
  std::size_t i = part.size();
  k[i++] = s.nest_index;
  for (const auto& lv : s.blocking.bl_ts)
    for (auto f : lv) k[i++] = f;
  for (std::size_t lv = 0; lv < s.blocking.bl_ords.size(); ++lv) {
    const auto& ord = s.blocking.bl_ords[lv];
    for (auto p : canonical ? canonical_order(s.blocking.bl_ts[lv], ord) : ord) k[i++] = p;
  }
  return k;
}

}  // namespace

MemoOracle::Key MemoOracle::key_of(const CanonicalScheme& s) { return scheme_key(s, false); }

MemoOracle::Key MemoOracle::price_key_of(const CanonicalScheme& s) { return scheme_key(s, true); }

std::optional<Score> MemoOracle::evaluate(const CanonicalScheme& s) const {
  const auto k = key_of(s);
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (auto it = seen_.find(k); it != seen_.end()) return it->second.score;
  }
  // Priced outside the lock: two threads may price the same scheme; both get the same answer.
  const auto sc = inner().evaluate(s);
  const std::lock_guard<std::mutex> lock(mu_);
  seen_.emplace(k, Priced{s, sc});
  if (sc)
    parts_.emplace(s.part.flat_key(), true);  // invalid schemes are rejected before the placement
  return sc;
}

std::optional<Score> MemoOracle::evaluate_on_chip(const CanonicalScheme& s) const {
  if (!on_chip_) return evaluate(s);
  return remembered(mu_, on_chip_seen_, price_key_of(s),
                    [&] { return on_chip_->evaluate_on_chip(s); });
}

std::optional<Score> MemoOracle::evaluate_bound(const CanonicalScheme& s, bool on_chip) const {
  if (!bounds_) return on_chip ? evaluate_on_chip(s) : evaluate(s);
  const auto k = price_key_of(s);
  auto& bounds = on_chip ? on_chip_bounds_ : bounds_seen_;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    // A price already known is its own tightest bound: on chip, the on-chip price (which
    // bounds the full one too), else the full price.
    if (on_chip) {
      if (auto it = on_chip_seen_.find(k); it != on_chip_seen_.end()) return it->second;
    } else if (auto it = seen_.find(key_of(s)); it != seen_.end()) {
      return it->second.score;
    }
    if (auto it = bounds.find(k); it != bounds.end()) return it->second;
  }
  const auto sc = bounds_->evaluate_bound(s, on_chip);
  const std::lock_guard<std::mutex> lock(mu_);
  bounds.emplace(k, sc);
  if (sc && !on_chip) parts_.emplace(s.part.flat_key(), true);  // this bound placed it
  return sc;
}

std::optional<Score> MemoOracle::evaluate_bound_at_fetch(const CanonicalScheme& s,
                                                         const cost::FetchCounts& fetch,
                                                         bool on_chip) const {
  KAPLA_ASSERT(bounds_ != nullptr, "MemoOracle: no bound to take at given fetch counts");
  return bounds_->evaluate_bound_at_fetch(s, fetch, on_chip);
}

NestList MemoOracle::nests(const mapping::PartitionScheme& part) const {
  // An element of partitions() (most fits' partition) is remembered by its position: no
  // hashing. Equal partitions have equal nests, so either memo answers the same.
  if (const auto i = element_index(partitions(), part)) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (nests_at_[*i]) return nests_at_[*i];
    }
    auto v = inner().nests(part);
    const std::lock_guard<std::mutex> lock(mu_);
    if (!nests_at_[*i]) nests_at_[*i] = v;
    return v;
  }
  return remembered(mu_, nests_, part.flat_key(), [&] { return inner().nests(part); });
}

std::size_t MemoOracle::partitions_priced() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return parts_.size();
}

std::vector<std::pair<CanonicalScheme, Score>> MemoOracle::valid_priced() const {
  const std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<CanonicalScheme, Score>> out;
  for (const auto& [k, p] : seen_)
    if (p.score) out.emplace_back(p.scheme, *p.score);
  return out;
}

std::size_t MemoOracle::priced() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return seen_.size();
}

}  // namespace kapla::search::kapla
