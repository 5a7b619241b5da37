// A deterministic TupleRunner for sweep tests: values are a function of the tuple key and the
// seed only (never of threads, rank or timing); the run sleeps cost * seconds_per_cost,
// polling the deadline and the stop flag. Network names steer it:
//   "..._c<N>"  cost N (else 1, 10 or 100 from a hash: costs differ by orders of magnitude)
//   "bad..."    check() fails (unknown network)
//   "nosol..."  status no_solution;  "throw..." run() throws (recorded as failed)
// StoppingRunner wraps a runner and raises the stop flag after N tuples (an injected stop).
#pragma once

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/errors.hpp"
#include "sweep/runner.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep::testing {

class FakeRunner final : public TupleRunner {
 public:
  explicit FakeRunner(double seconds_per_cost = 0) : seconds_per_cost_(seconds_per_cost) {}

  void check(const Tuple& t) const override {
    if (t.network.rfind("bad", 0) == 0) {
      throw InputError("unknown network '" + t.network + "'; known: anything else");
    }
  }

  double estimate_cost(const Tuple& t) const override { return cost(t); }

  static double cost(const Tuple& t) {
    const auto pos = t.network.rfind("_c");
    if (pos != std::string::npos) {
      const std::string digits = t.network.substr(pos + 2);
      if (!digits.empty() && digits.find_first_not_of("0123456789.") == std::string::npos) {
        return std::atof(digits.c_str());
      }
    }
    static const double kCosts[] = {1, 10, 100};
    return kCosts[fnv1a(t.network + "/" + t.hardware + "/" + t.strategy) % 3];
  }

  TupleResult run(const Tuple& t, const RunContext& ctx) const override {
    if (t.network.rfind("throw", 0) == 0) throw std::runtime_error("fake failure in " + t.key());
    TupleResult r;
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(cost(t) * seconds_per_cost_));
    while (std::chrono::steady_clock::now() < end) {
      if (ctx.stop_requested()) {
        r.status = TupleStatus::Interrupted;
        return r;
      }
      if (ctx.past_deadline()) {
        r.status = TupleStatus::Timeout;
        r.message = "time limit reached";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (t.network.rfind("nosol", 0) == 0) {
      r.status = TupleStatus::NoSolution;
      r.message = "no feasible schedule";
      return r;
    }
    std::uint64_t h = mix_seed(ctx.seed, fnv1a(t.key()));
    auto next = [&h] {
      h = mix_seed(h, 1);
      return 1.0 + static_cast<double>(h % 1000000) / 1000.0;
    };
    const int num_layers = 2 + static_cast<int>(fnv1a(t.network) % 4);
    for (int i = 0; i < num_layers; ++i) {
      LayerRow l;
      l.layer = std::to_string(i).insert(0, "layer");
      l.segment = i / 2;
      for (auto& p : l.energy_parts) {
        p = next();
        l.energy += p;
      }
      l.time = next() * static_cast<double>(t.batch);
      l.macs = (i % 2 == 0 ? 1000 * (i + 1) : 0) * t.batch;  // odd layers: a kind without MACs
      r.macs += l.macs;
      l.partition = "OUTP=(2,2) OFMP=(1,1)";
      l.blocking = std::to_string(i).insert(0, "b");
      l.orders = "N,C,K";
      for (std::size_t k = 0; k < l.energy_parts.size(); ++k)
        r.energy_parts[k] += l.energy_parts[k];
      r.energy += l.energy;
      r.time += l.time;
      r.layers.push_back(l);
    }
    for (int s = 0; s <= (num_layers - 1) / 2; ++s) {
      SegmentRow seg{s, std::to_string(2 * s).insert(0, "layer"), 0, 0};
      for (const auto& l : r.layers) {
        if (l.segment == s) {
          seg.energy += l.energy;
          seg.time += l.time;
        }
      }
      r.segments.push_back(seg);
    }
    r.edp = r.energy * r.time;
    r.total_cost = r.energy;
    r.pe_utilisation = static_cast<double>(h % 1000 + 1) / 1000.0;
    r.stats.evaluated = static_cast<std::int64_t>(h % 5000) + 10;
    r.stats.valid = r.stats.evaluated / 2;
    r.stats.pruned = r.stats.evaluated / 3;
    if (t.strategy == "random" || t.strategy == "guided") {
      for (int i = 1; i <= 4; ++i)
        r.stats.curve.push_back({i * 10, 0.001 * i, r.total_cost * (1 + 1.0 / i)});
    }
    r.resolved = {{"hardware.name", t.hardware}, {"options.opt_goal", "e"}};
    // A stand-in for the schedule document (its bytes differ per tuple; a timeout keeps it as
    // a completed search would): resume, merge and the rank tests carry it like the rest.
    r.schedule = "{\"net\":\"" + t.network + "\",\"cost\":" + std::to_string(h % 100000) + "}";
    return r;
  }

 private:
  double seconds_per_cost_;
};

// Stops the sweep (as SIGUSR1 would) after `after` tuples.
class StoppingRunner final : public TupleRunner {
 public:
  StoppingRunner(const TupleRunner& inner, int after) : inner_(inner), after_(after) {}
  void check(const Tuple& t) const override { inner_.check(t); }
  double estimate_cost(const Tuple& t) const override { return inner_.estimate_cost(t); }
  TupleResult run(const Tuple& t, const RunContext& ctx) const override {
    auto r = inner_.run(t, ctx);
    if (++count_ >= after_) stop_flag().store(true);
    return r;
  }

 private:
  const TupleRunner& inner_;
  int after_;
  mutable int count_ = 0;
};

}  // namespace kapla::sweep::testing
