// Scheduling DAG. Spec: nn_dataflow-spec.md §9.4.
#include "schedule/sched_dag.hpp"

#include <algorithm>
#include <functional>

#include "core/errors.hpp"

namespace kapla::schedule {

using model::LayerSource;

std::vector<std::size_t> SchedDag::ordered_layers() const {
  std::vector<std::size_t> out;
  for (const auto& v : vertices) out.insert(out.end(), v.begin(), v.end());
  return out;
}

bool starts_vertex(const model::Layer& layer) { return layer.has_filter(); }

namespace {

bool is_layer_prev(const std::vector<LayerSource>& prevs, std::size_t layer) {
  return std::any_of(prevs.begin(), prevs.end(), [&](const LayerSource& s) {
    return s.kind == LayerSource::Kind::Layer && s.index == layer;
  });
}

// Whether layer `b` is the B operand of a MatMul whose A may stay on chip
// (Network::forwards_on_chip) and nothing else reads `b`.
bool feeds_on_chip_matmul_as_b(const model::Network& net, std::size_t b) {
  const auto& nexts = net.nexts(b);
  if (nexts.size() != 1) return false;
  const std::size_t m = nexts.front();
  const auto& prevs = net.prevs(m);
  if (!net.layer(m).is_matmul() || prevs.size() != 2) return false;
  const auto is_layer = [](const LayerSource& s) { return s.kind == LayerSource::Kind::Layer; };
  return is_layer(prevs[0]) && is_layer(prevs[1]) && prevs[1].index == b &&
         net.forwards_on_chip(prevs[0].index, m);
}

// The order the DAG is built in: the file's, except that the producer of a MatMul's B
// operand is listed right after its own last input layer (first if it reads only network
// inputs) where feeds_on_chip_matmul_as_b holds, and after the producers of that kind already
// there whose MatMul comes first. The depth-first order keeps sibling layers in this order and
// a segment is a run of the depth-first order: written Q, K, V, scores, softmax, attention x V
// (torch's order, and the natural one), K's and V's projections would sit between Q and the
// scores and between the softmax and attention x V, and keep Q and the probabilities, which
// may stay on chip as the MatMuls' A, out of their segment (docs/transformers.md §5.4). Moved,
// they read K, V, Q however the file lists them: V, whose MatMul comes later, may share a
// segment with Q and the scores (and its input fetch with Q's); K may not. Networks without
// MatMuls (nn_dataflow's) keep the file order; the DAG's edges never change.
std::vector<std::size_t> listing_order(const model::Network& net) {
  std::vector<std::size_t> order(net.size());
  for (std::size_t l = 0; l < order.size(); ++l) order[l] = l;
  const auto at = [&](std::size_t l) { return std::find(order.begin(), order.end(), l); };
  for (std::size_t b = 0; b < net.size(); ++b) {
    if (!feeds_on_chip_matmul_as_b(net, b)) continue;
    auto to = order.begin();
    for (const auto& p : net.prevs(b))
      if (p.kind == LayerSource::Kind::Layer) to = std::max(to, at(p.index) + 1);
    const auto from = at(b);
    while (to < from && feeds_on_chip_matmul_as_b(net, *to) &&
           net.nexts(*to).front() < net.nexts(b).front())
      ++to;
    if (to < from) std::rotate(to, from, from + 1);
  }
  return order;
}

// Vertices in listing order (before the topological sort): a local-region layer joins the
// newest vertex whose last layer is one of its prevs, whose other layers are not, and whose
// last layer feeds only this layer (its data is overwritten in place).
std::vector<std::vector<std::size_t>> merge_vertices(const model::Network& net,
                                                     const std::vector<std::size_t>& listing) {
  std::vector<std::vector<std::size_t>> verts;
  for (std::size_t l : listing) {
    if (starts_vertex(net.layer(l))) {
      verts.push_back({l});
      continue;
    }
    const auto& prevs = net.prevs(l);
    bool merged = false;
    for (std::size_t k = verts.size(); k-- > 0;) {
      auto& v = verts[k];
      const bool head_disjoint = std::none_of(
          v.begin(), v.end() - 1, [&](std::size_t x) { return is_layer_prev(prevs, x); });
      const std::size_t tail = v.back();
      if (head_disjoint && is_layer_prev(prevs, tail) && net.nexts(tail).size() == 1) {
        v.push_back(l);
        merged = true;
        break;
      }
    }
    if (!merged) verts.push_back({l});
  }
  return verts;
}

// Depth-first topological order: reversed post-order of a DFS that visits next vertices in
// reversed order of first appearance, started from the first layers in reversed order; layers
// appear in listing order (`rank`: each layer's place in it).
std::vector<std::size_t> topological_order(const model::Network& net,
                                           const std::vector<std::vector<std::size_t>>& verts,
                                           const std::vector<std::size_t>& raw_vertex_of,
                                           const std::vector<std::size_t>& rank) {
  const auto by_rank = [&](std::vector<std::size_t> layers) {
    std::sort(layers.begin(), layers.end(),
              [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
    return layers;
  };
  enum class State : std::uint8_t { Unseen, Seen, Visited };
  std::vector<State> state(verts.size(), State::Unseen);
  std::vector<std::size_t> visited;
  std::function<void(std::size_t)> dfs = [&](std::size_t v) {
    KAPLA_ASSERT(state[v] != State::Seen, "scheduling DAG has a cycle");
    if (state[v] == State::Visited) return;
    state[v] = State::Seen;
    std::vector<std::size_t> next_layers;
    for (std::size_t l : verts[v]) {
      for (std::size_t n : by_rank(net.nexts(l))) {
        if (raw_vertex_of[n] == v) continue;
        if (std::find(next_layers.begin(), next_layers.end(), n) == next_layers.end()) {
          next_layers.push_back(n);
        }
      }
    }
    std::vector<std::size_t> next_vertices;
    for (auto it = next_layers.rbegin(); it != next_layers.rend(); ++it) {
      const std::size_t nv = raw_vertex_of[*it];
      if (state[nv] == State::Unseen) next_vertices.push_back(nv);
    }
    for (std::size_t nv : next_vertices) dfs(nv);
    visited.push_back(v);
    state[v] = State::Visited;
  };
  const auto firsts = by_rank(net.firsts());
  std::vector<std::size_t> starts;
  for (auto it = firsts.rbegin(); it != firsts.rend(); ++it) {
    const std::size_t v = raw_vertex_of[*it];
    if (state[v] == State::Unseen) starts.push_back(v);
  }
  for (std::size_t v : starts) dfs(v);
  KAPLA_ASSERT(visited.size() == verts.size(), "scheduling DAG: unreachable vertices");
  std::reverse(visited.begin(), visited.end());
  return visited;
}

void insert_sorted(std::vector<int>& set, int v) {
  auto it = std::lower_bound(set.begin(), set.end(), v);
  if (it == set.end() || *it != v) set.insert(it, v);
}

}  // namespace

SchedDag build_sched_dag(const model::Network& net) {
  const auto listing = listing_order(net);
  std::vector<std::size_t> rank(net.size());
  for (std::size_t i = 0; i < listing.size(); ++i) rank[listing[i]] = i;
  const auto raw = merge_vertices(net, listing);
  std::vector<std::size_t> raw_vertex_of(net.size());
  for (std::size_t v = 0; v < raw.size(); ++v) {
    for (std::size_t l : raw[v]) raw_vertex_of[l] = v;
  }
  const auto order = topological_order(net, raw, raw_vertex_of, rank);

  SchedDag dag;
  dag.vertex_of.assign(net.size(), 0);
  for (std::size_t v : order) {
    for (std::size_t l : raw[v]) dag.vertex_of[l] = static_cast<int>(dag.vertices.size());
    dag.vertices.push_back(raw[v]);
  }
  dag.prevs.assign(dag.size(), {});
  dag.nexts.assign(dag.size(), {});
  for (std::size_t l = 0; l < net.size(); ++l) {
    const int v = dag.vertex_of[l];
    for (const auto& p : net.prevs(l)) {
      const int pv = p.kind == LayerSource::Kind::Layer ? dag.vertex_of[p.index] : kInputVertex;
      if (pv != v) insert_sorted(dag.prevs[static_cast<std::size_t>(v)], pv);
    }
    for (std::size_t n : net.nexts(l)) {
      const int nv = dag.vertex_of[n];
      if (nv != v) insert_sorted(dag.nexts[static_cast<std::size_t>(v)], nv);
    }
  }
  return dag;
}

}  // namespace kapla::schedule
