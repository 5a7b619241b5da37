// Tuple expansion and the stable hashes behind keys and seeds.
#include "sweep/job.hpp"

#include <set>

#include "core/checked_math.hpp"
#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::sweep {

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string hex64(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kDigits[value & 0xf];
    value >>= 4;
  }
  return out;
}

HardwareAxis design_axis(DesignPoint point, std::vector<std::int64_t> batches) {
  HardwareAxis hw;
  hw.name = point.hardware.name;
  hw.batches = std::move(batches);
  hw.design = std::move(point.hardware);
  hw.params = std::move(point.params);
  return hw;
}

std::string Tuple::key() const {
  std::string k = network + ":" + hardware + ":" + strategy + ":b" + std::to_string(batch) + ":s" +
                  std::to_string(seed);
  if (!strategy_params.empty()) k += ":p" + hex64(fnv1a(strategy_params)).substr(0, 8);
  if (imperfect != model::Imperfect::None)
    k += ":i" + std::string(model::imperfect_name(imperfect));
  return k;
}

std::uint64_t tuple_seed(const Tuple& tuple) { return mix_seed(tuple.seed, fnv1a(tuple.key())); }

std::vector<Tuple> expand_tuples(const SweepSpec& spec) {
  // Counted before a tuple is built: the axes of a small file multiply to any number.
  std::int64_t hardware_batches = 0;
  for (const auto& hw : spec.hardware) {
    hardware_batches += static_cast<std::int64_t>(hw.batches.size());
  }
  const std::int64_t count =
      checked_product({static_cast<std::int64_t>(spec.networks.size()), hardware_batches,
                       static_cast<std::int64_t>(spec.strategies.size()),
                       static_cast<std::int64_t>(spec.seeds.size())});
  if (count < 0 || count > model::limits::kMaxTuples) {
    throw InputError("axes: " + count_text(count) +
                     " tuples (networks x hardware and batches x strategies x seeds), more than " +
                     std::to_string(model::limits::kMaxTuples));
  }
  std::vector<Tuple> tuples;
  std::set<std::string> keys;
  for (const auto& network : spec.networks) {
    for (const auto& hw : spec.hardware) {
      for (const auto batch : hw.batches) {
        for (const auto& strategy : spec.strategies) {
          for (const auto seed : spec.seeds) {
            Tuple t;
            t.index = tuples.size();
            t.network = network;
            t.hardware = hw.name;
            t.strategy = strategy.name;
            t.strategy_params = strategy.params;
            t.strategy_options = strategy.options;
            t.strategy_letter = strategy.letter;
            t.strategy_label = strategy.label;
            t.batch = batch;
            t.seed = seed;
            t.design = hw.params;
            t.imperfect = spec.options.imperfect;
            if (!keys.insert(t.key()).second) {
              throw InputError("axes: tuple '" + t.key() + "' appears twice");
            }
            tuples.push_back(std::move(t));
          }
        }
      }
    }
  }
  return tuples;
}

}  // namespace kapla::sweep
