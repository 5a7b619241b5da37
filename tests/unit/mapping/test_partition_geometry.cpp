// Partition geometry, generation, per-node layers, data ranges, layouts and unit hops against
// the spec's examples and invariants (nn_dataflow-spec.md §8.1-§8.7, §11.16-§11.22).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "core/errors.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_range.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"
#include "mapping/partition.hpp"

namespace kapla::mapping {
namespace {

model::SearchOptions hybrid_opts() {
  model::SearchOptions o;
  o.partition_hybrid = true;
  o.partition_batch = true;
  o.partition_ifmaps = true;
  return o;
}

PartitionScheme make_part(std::array<ParallelDim, 4> order, PhyDim2 outp, PhyDim2 ofmp,
                          PhyDim2 batp, PhyDim2 inpp) {
  PartitionScheme p;
  p.order = order;
  p.pdims[ParallelDim::Outp] = outp;
  p.pdims[ParallelDim::Ofmp] = ofmp;
  p.pdims[ParallelDim::Batp] = batp;
  p.pdims[ParallelDim::Inpp] = inpp;
  return p;
}

constexpr std::array<ParallelDim, 4> kOrder0{ParallelDim::Outp, ParallelDim::Ofmp,
                                             ParallelDim::Batp, ParallelDim::Inpp};

TEST(GenPartition, NaiveGivesOneSchemePerLayer) {
  // §8.2: naive mode: Conv -> OFMP = nodes, order (0,2,3,1); FC -> OUTP = nodes, (1,2,3,0).
  const model::SearchOptions naive;
  const auto conv1 = model::make_conv(3, 48, {55, 55}, {11, 11}, {4, 4});
  const auto fc2 = model::make_fc(4096, 4096);
  const auto parts = gen_partition(conv1, 16, {4, 4}, naive);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].pdims[ParallelDim::Ofmp], (PhyDim2{4, 4}));
  EXPECT_EQ(parts[0].order, (std::array<ParallelDim, 4>{ParallelDim::Outp, ParallelDim::Batp,
                                                        ParallelDim::Inpp, ParallelDim::Ofmp}));
  const auto fparts = gen_partition(fc2, 16, {4, 4}, naive);
  ASSERT_EQ(fparts.size(), 1u);
  EXPECT_EQ(fparts[0].pdims[ParallelDim::Outp], (PhyDim2{4, 4}));
  EXPECT_EQ(fparts[0].order, (std::array<ParallelDim, 4>{ParallelDim::Ofmp, ParallelDim::Batp,
                                                         ParallelDim::Inpp, ParallelDim::Outp}));
  EXPECT_EQ(
      gen_partition(model::make_pooling(48, {27, 27}, {3, 3}, {2, 2}), 16, {4, 4}, naive).size(),
      1u);
}

TEST(GenPartition, HybridCountsOfTheSpecExample) {
  // §8.2: AlexNet on 4x4, hybrid + batch + ifmaps: conv1_a 87, fc2 26, pool1_a 36 schemes.
  const auto o = hybrid_opts();
  const auto conv1 = model::make_conv(3, 48, {55, 55}, {11, 11}, {4, 4});
  const auto fc2 = model::make_fc(4096, 4096);
  const auto pool1 = model::make_pooling(48, {27, 27}, {3, 3}, {2, 2});
  EXPECT_EQ(gen_partition(conv1, 16, {4, 4}, o).size(), 87u);
  EXPECT_EQ(gen_partition(fc2, 16, {4, 4}, o).size(), 26u);
  EXPECT_EQ(gen_partition(pool1, 16, {4, 4}, o).size(), 36u);
}

TEST(GenPartition, EverySchemeCoversTheNodesAndIsUnique) {
  const auto o = hybrid_opts();
  const auto conv = model::make_conv(64, 128, {28, 28}, {3, 3});
  const auto parts = gen_partition(conv, 8, {2, 4}, o);
  ASSERT_FALSE(parts.empty());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(parts[i].dim(), (PhyDim2{2, 4}));
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(parts[i] == parts[j]);
  }
}

TEST(GenPartition, GuaranteedFallback) {
  // Nothing divides: batch 3 with BATP-only options and a 1-channel layer is still served.
  model::SearchOptions o = hybrid_opts();
  const auto conv = model::make_conv(1, 1, {1, 1}, {1, 1});
  const auto parts = gen_partition(conv, 3, {4, 4}, o, true);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].pdims[ParallelDim::Outp], (PhyDim2{4, 4}));
  EXPECT_TRUE(gen_partition(conv, 3, {4, 4}, o, false).empty());
}

TEST(PartitionGeometry, GenPidxOrderAndCoordinate) {
  // §11.16: gen_pidx iterates paes in enum order; coordinate composes levels in `order`.
  const auto p =
      make_part({ParallelDim::Batp, ParallelDim::Outp, ParallelDim::Ofmp, ParallelDim::Inpp},
                {2, 1}, {1, 2}, {2, 2}, {1, 1});
  const auto idx = gen_pidx(p);
  ASSERT_EQ(idx.size(), 16u);
  EXPECT_EQ(idx[1][ParallelDim::Batp], (PhyDim2{0, 1}));  // BATP varies before OUTP
  EXPECT_EQ(idx[4][ParallelDim::Ofmp], (PhyDim2{0, 1}));
  const auto region = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  std::set<PhyDim2> coords;
  for (const auto& i : idx) coords.insert(coordinate(p, region, i));
  EXPECT_EQ(coords.size(), 16u);
  // BATP is the top level: its index is the most significant digit.
  PartIndex pi;
  pi[ParallelDim::Batp] = {1, 1};
  EXPECT_EQ(coordinate(p, region, pi), (PhyDim2{2, 2}));
}

TEST(PartitionGeometry, FmapRangeEvenSplits) {
  // get_ith_range: L = 6, n = 4 gives sizes 1, 2, 1, 2 (§1.3).
  const auto p = make_part(kOrder0, {1, 1}, {4, 1}, {1, 1}, {1, 1});
  const FmapRange full{{0, 0, 0, 0}, {1, 1, 6, 5}};
  std::vector<std::int64_t> sizes;
  for (std::int64_t i = 0; i < 4; ++i) {
    PartIndex pi;
    pi[ParallelDim::Ofmp] = {i, 0};
    const auto r = fmap_range(p, full, pi);
    sizes.push_back(r.end[2] - r.beg[2]);
    EXPECT_EQ(r.end[3] - r.beg[3], 5);
  }
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{1, 2, 1, 2}));
}

TEST(PartitionGeometry, ProjectionExamples) {
  // §8.1: a (1,1) scheme onto the 2x2 DRAM region becomes BATP (2,2); OFMP (4,4) -> (2,2).
  const auto dram = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  const PartitionScheme trivial;
  EXPECT_EQ(projection(trivial, dram, true).pdims[ParallelDim::Batp], (PhyDim2{2, 2}));
  const auto ofmp = make_part(kOrder0, {1, 1}, {4, 4}, {1, 1}, {1, 1});
  const auto proj = projection(ofmp, dram, true);
  EXPECT_EQ(proj.pdims[ParallelDim::Ofmp], (PhyDim2{2, 2}));
  EXPECT_EQ(proj.pdims[ParallelDim::Batp], (PhyDim2{1, 1}));
  // appl2frng drops INPP first; shrinking goes bottom level first.
  const auto mixed = make_part(kOrder0, {2, 1}, {1, 1}, {1, 1}, {2, 4});
  const auto pm = projection(mixed, dram, true);
  EXPECT_TRUE(is_applicable_to_fmap_range(pm));
  EXPECT_EQ(pm.pdims[ParallelDim::Outp], (PhyDim2{2, 1}));
  EXPECT_EQ(pm.pdims[ParallelDim::Batp], (PhyDim2{1, 2}));
  EXPECT_THROW((void)projection(trivial, NodeRegion{}, true), InternalError);
}

TEST(PartitionGeometry, NeighborDistance) {
  const auto region = NodeRegion::rectangle({4, 4}, {0, 0}, RegionType::Proc);
  const auto p =
      make_part({ParallelDim::Batp, ParallelDim::Outp, ParallelDim::Ofmp, ParallelDim::Inpp},
                {2, 1}, {1, 2}, {2, 2}, {1, 1});
  constexpr double inf = std::numeric_limits<double>::infinity();
  // OFMP (1,2) is the third level (below BATP (2,2) and OUTP (2,1)): w neighbours 1 apart.
  EXPECT_EQ(part_neighbor_dist(p, region, ParallelDim::Ofmp), (Dist2{inf, 1}));
  EXPECT_EQ(part_neighbor_dist(p, region, ParallelDim::Outp), (Dist2{1, inf}));
  EXPECT_EQ(part_neighbor_dist(p, region, ParallelDim::Batp), (Dist2{2, 2}));
  EXPECT_EQ(part_neighbor_dist(p, region, ParallelDim::Inpp), (Dist2{inf, inf}));
}

// part_neighbor_dists (the walk over the nodes on folded regions, the closed form on
// unfolded ones) and the walk itself against a direct search: for every node, find its
// neighbour one step back along (pae, h|w) by index and average the hops.
TEST(PartitionGeometry, NeighborDistancesMatchADirectSearchOnFoldedRegions) {
  const auto chip = NodeRegion::rectangle({8, 8}, {0, 0}, RegionType::Proc);
  const auto stripes = chip.allocate({28, 22, 14});
  ASSERT_EQ(stripes.size(), 3u);
  const auto dram = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Dram, {3, 3});
  const auto spread = NodeRegion::rectangle({4, 8}, {1, 2}, RegionType::Proc, {2, 1});
  int checked = 0;
  for (const NodeRegion& region : {stripes[0], stripes[1], chip, dram, spread}) {
    for (const auto& part : gen_partition(model::make_conv(64, 64, {28, 28}, {3, 3}), 8, region.dim,
                                          hybrid_opts(), false)) {
      const auto all = part_neighbor_dists(part, region);
      const auto pidxs = gen_pidx(part);
      for (ParallelDim pae : all_values<ParallelDim>()) {
        std::int64_t sum[2] = {0, 0}, cnt[2] = {0, 0};
        for (const PartIndex& a : pidxs) {
          for (int dim = 0; dim < 2; ++dim) {
            PartIndex b = a;
            std::int64_t& k = dim == 0 ? b[pae].h : b[pae].w;
            if (k == 0) continue;
            --k;
            sum[dim] += coordinate(part, region, a).hop_dist(coordinate(part, region, b));
            ++cnt[dim];
          }
        }
        constexpr double inf = std::numeric_limits<double>::infinity();
        const Dist2 want{cnt[0] ? static_cast<double>(sum[0]) / static_cast<double>(cnt[0]) : inf,
                         cnt[1] ? static_cast<double>(sum[1]) / static_cast<double>(cnt[1]) : inf};
        EXPECT_EQ(all[pae], want);
        EXPECT_EQ(part_neighbor_dists_walked(part, region)[pae], want);
        EXPECT_EQ(part_neighbor_dist(part, region, pae), want);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// Kruskal over every pair, with the sources merged into one component: the oracle of the
// spanning-tree weights below.
std::int64_t kruskal_weight(const std::vector<PhyDim2>& sources,
                            const std::vector<PhyDim2>& dests) {
  // Node 0 is every source at once; then the distinct other destinations.
  std::vector<PhyDim2> nodes;
  for (const auto& d : dests)
    if (std::find(sources.begin(), sources.end(), d) == sources.end() &&
        std::find(nodes.begin(), nodes.end(), d) == nodes.end())
      nodes.push_back(d);
  struct Edge {
    std::int64_t w;
    std::size_t a, b;
  };
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::int64_t to_src = std::numeric_limits<std::int64_t>::max();
    for (const auto& s : sources) to_src = std::min(to_src, nodes[i].hop_dist(s));
    edges.push_back({to_src, 0, i + 1});
    for (std::size_t j = 0; j < i; ++j)
      edges.push_back({nodes[i].hop_dist(nodes[j]), j + 1, i + 1});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.w < y.w; });
  std::vector<std::size_t> root(nodes.size() + 1);
  for (std::size_t i = 0; i < root.size(); ++i) root[i] = i;
  auto find = [&](std::size_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  std::int64_t want = 0;
  for (const auto& e : edges) {
    const std::size_t ra = find(e.a), rb = find(e.b);
    if (ra == rb) continue;
    root[ra] = rb;
    want += e.w;
  }
  return want;
}

// mst_weight (Prim from pre-connected sources) against Kruskal, on random node sets with
// duplicates.
TEST(DataLayout, MstWeightMatchesKruskal) {
  std::uint64_t state = 12345;
  auto next = [&](std::int64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(n));
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<PhyDim2> sources, dests;
    for (std::int64_t i = 0, n = 1 + next(3); i < n; ++i) sources.push_back({next(8), next(8)});
    for (std::int64_t i = 0, n = next(40); i < n; ++i) dests.push_back({next(8), next(8)});
    EXPECT_EQ(mst_weight(sources, dests), kruskal_weight(sources, dests)) << "trial " << trial;
  }
}

// A full grid of random row and column gaps: mst_weight (by Kruskal over the grid's neighbour
// edges from 24 destinations on) and tree_weight (a closed form) against Kruskal over every
// pair; sources inside, on and outside the grid (the 2D memory's corner nodes are processing
// nodes too); listed in random order with duplicates; every third grid has a node missing.
// One scratch for all trials, as a placement reuses it.
TEST(DataLayout, GridSpanningTreesMatchKruskal) {
  std::uint64_t state = 777;
  auto next = [&](std::int64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(n));
  };
  HopScratch scratch;
  int grids = 0, large = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<std::int64_t> rows{next(4)}, cols{next(4)};
    for (std::int64_t i = 0, n = next(8); i < n; ++i) rows.push_back(rows.back() + 1 + next(4));
    for (std::int64_t i = 0, n = next(8); i < n; ++i) cols.push_back(cols.back() + 1 + next(4));
    std::vector<PhyDim2> nodes;
    for (auto r : rows)
      for (auto c : cols) nodes.push_back({r, c});
    for (std::size_t i = nodes.size(); i > 1; --i)
      std::swap(nodes[i - 1], nodes[static_cast<std::size_t>(next(static_cast<std::int64_t>(i)))]);
    for (std::int64_t i = 0, n = next(3); i < n; ++i)
      nodes.push_back(
          nodes[static_cast<std::size_t>(next(static_cast<std::int64_t>(nodes.size())))]);
    if (trial % 3 == 2 && nodes.size() > 1) nodes.erase(nodes.begin());
    grids += trial % 3 != 2;
    large += trial % 3 != 2 && rows.size() * cols.size() >= 24;
    EXPECT_EQ(tree_weight(nodes, scratch), kruskal_weight({nodes.front()}, nodes))
        << "trial " << trial;
    std::vector<PhyDim2> sources;
    for (std::int64_t i = 0, n = 1 + next(4); i < n; ++i)
      sources.push_back({next(rows.back() + 6) - 3, next(cols.back() + 6) - 3});
    EXPECT_EQ(mst_weight(sources, nodes, scratch), kruskal_weight(sources, nodes))
        << "trial " << trial;
  }
  EXPECT_GT(grids, 300);
  EXPECT_GT(large, 100);
  // By hand: rows {0, 1, 5} x columns {0, 2}: 1 + 1 (rows 0-1), 2 (columns, on row 0),
  // 4 (rows 1-5, column 0), 2 (columns, on row 5) = 10.
  EXPECT_EQ(tree_weight({{5, 2}, {0, 0}, {1, 0}, {0, 2}, {1, 2}, {5, 0}}, scratch), 10);
  EXPECT_EQ(tree_weight({{3, 3}}, scratch), 0);
}

// nhops_per_dest (only the pieces met, found per dimension; from 8 destinations on, by rows
// and columns of nodes) against the sum over every piece of the layout, on layouts of one or
// two entries split by random partitions (INPP replicas included), ranges inside, across and
// outside them, destinations anywhere (inside, around and beyond the layout's nodes). With an
// OverlapMemo per layout too, on queries that keep most dimensions of the one before (as a
// partition's data groups do).
TEST(DataLayout, NhopsPerDestMatchesSumOverEveryPiece) {
  std::uint64_t state = 4242;
  auto next = [&](std::int64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(n));
  };
  auto dim = [&] { return PhyDim2{1 + next(3), 1 + next(3)}; };
  HopScratch scratch;
  std::int64_t met = 0, many = 0, kept = 0;
  for (int trial = 0; trial < 300; ++trial) {
    DataLayout dl;
    std::int64_t ch = 0;
    for (std::int64_t k = 0, n = 1 + next(2); k < n; ++k) {
      const PartitionScheme part = make_part(kOrder0, dim(), dim(), dim(), dim());
      const std::int64_t nch = 1 + next(12);
      dl.frngs.push_back(
          FmapRange{{0, ch, 0, 0}, {1 + next(6), ch + nch, 1 + next(9), 1 + next(9)}});
      ch += nch;
      dl.regions.push_back(NodeRegion::rectangle(part.dim(), {next(3), next(3)}, RegionType::Proc));
      dl.parts.push_back(part);
    }
    const LayoutPieces pieces = layout_pieces(dl);
    OverlapMemo memo;
    FmapRange fr;
    // Queries 0-20 draw every dimension afresh; 21-39 keep each of the query before's with
    // probability 2/3.
    for (int q = 0; q < 40; ++q) {
      for (int d = 0; d < 4; ++d) {
        if (q > 20 && next(3) != 0) {
          ++kept;
          continue;
        }
        fr.beg[d] = next(12) - 2;
        fr.end[d] = fr.beg[d] + next(8);
      }
      std::vector<PhyDim2> dests;
      const std::int64_t ndests = q % 2 == 0 ? 1 + next(4) : 8 + next(12);
      many += ndests >= 8;
      for (std::int64_t i = 0; i < ndests; ++i) dests.push_back({next(10) - 2, next(10) - 2});
      std::vector<std::int64_t> want(dests.size(), 0);
      for (const auto& p : pieces.pieces) {
        const std::int64_t size = overlap_size(fr, p.frng);
        met += size > 0;
        for (std::size_t i = 0; i < dests.size(); ++i) want[i] += size * dests[i].hop_dist(p.node);
      }
      std::vector<std::int64_t> got;
      nhops_per_dest(pieces, fr, dests, got, scratch);
      EXPECT_EQ(got, want) << "trial " << trial << " query " << q;
      nhops_per_dest(pieces, fr, dests, got, scratch, &memo);
      EXPECT_EQ(got, want) << "trial " << trial << " query " << q << " with the memo";
    }
  }
  EXPECT_GT(met, 1000);
  EXPECT_EQ(kept, 15225);  // query dimensions kept from the query before
  EXPECT_EQ(many, 6000);   // half the queries take the rows-and-columns path
}

TEST(PartLayer, CeilSplitsAndOccupancy) {
  // §8.3: ceil splits; occupancy = total ops / (per-node ops * nodes).
  const auto conv = model::make_conv(3, 48, {55, 55}, {11, 11}, {4, 4});
  const auto p = make_part(kOrder0, {1, 1}, {2, 2}, {1, 1}, {1, 1});
  const auto pl = part_layer(conv, 4, p);
  EXPECT_EQ(pl.p_layer.sofm, (PhyDim2{28, 28}));
  EXPECT_EQ(pl.p_layer.nifm, 3);
  EXPECT_EQ(pl.p_batch, 4);
  EXPECT_DOUBLE_EQ(pl.p_occupancy, 55.0 * 55 / (28 * 28 * 4));
  // FC becomes Conv.
  EXPECT_EQ(part_layer(model::make_fc(100, 10), 1, PartitionScheme{}).p_layer.type,
            model::LayerType::Conv);
}

TEST(PartLayer, EltwiseDropsChannelStride) {
  // §8.3, §11.19: the partitioned Eltwise is a LocalRegion with ntrd = 1 (nifm = p_nofm).
  const auto elt = model::make_eltwise(256, {56, 56}, 2);
  const auto p = make_part(kOrder0, {2, 1}, {1, 1}, {1, 1}, {1, 1});
  const auto pl = part_layer(elt, 1, p);
  EXPECT_EQ(pl.p_layer.type, model::LayerType::LocalRegion);
  EXPECT_EQ(pl.p_layer.nofm, 128);
  EXPECT_EQ(pl.p_layer.nifm, 128);
  EXPECT_EQ(pl.p_layer.ntrd, 1);
  EXPECT_DOUBLE_EQ(pl.p_occupancy, 1.0);
  const auto inpp = make_part(kOrder0, {1, 1}, {1, 1}, {1, 1}, {2, 1});
  EXPECT_THROW((void)part_layer(elt, 1, inpp), InputError);
}

TEST(PartLayer, BackLayersSwapChannelsAndSplitTheirIfmap) {
  // §12.4: ConvBackAct(nifm 192, nofm 256, sofm 15, 3) -> Conv(256, 192, 13) per node.
  const auto back = model::make_conv_back_act(192, 256, {15, 15}, {3, 3});
  const auto pl = part_layer(back, 2, PartitionScheme{});
  EXPECT_EQ(pl.p_layer.type, model::LayerType::Conv);
  EXPECT_EQ(pl.p_layer.nifm, 256);
  EXPECT_EQ(pl.p_layer.nofm, 192);
  EXPECT_EQ(pl.p_layer.sofm, (PhyDim2{13, 13}));
  EXPECT_DOUBLE_EQ(pl.p_occupancy, 1.0);
  const auto w = model::make_conv_back_weight(192, 256, {15, 15}, {3, 3});
  EXPECT_EQ(part_layer(w, 2, PartitionScheme{}).p_layer.rw_data, DataCategory::Fil);
}

TEST(DataRange, ConvAndLocalRegionWindows) {
  // §8.4: conv input window [ob*s, (oe-1)*s + f); INPP splits input channels.
  const auto conv = model::make_conv(8, 4, {6, 6}, {3, 3}, {1, 1});
  const auto p = make_part(kOrder0, {1, 1}, {2, 1}, {1, 1}, {2, 1});
  PartIndex pi;
  pi[ParallelDim::Ofmp] = {1, 0};
  pi[ParallelDim::Inpp] = {1, 0};
  const auto r = proc_data_range(conv, 2, p, pi);
  EXPECT_EQ(r.ofm, (FmapRange{{0, 0, 3, 0}, {2, 4, 6, 6}}));
  EXPECT_EQ(r.ifm, (FmapRange{{0, 4, 3, 0}, {2, 8, 8, 8}}));
  EXPECT_EQ(r.fil, (FilterRange{{4, 8}, {0, 4}}));
  // §11.19: LocalRegion channel window [nb - nreg//2, ne + nreg - nreg//2), clipped.
  const auto lrn = model::make_local_region(16, {4, 4}, 3, {1, 1});
  const auto q = make_part(kOrder0, {4, 1}, {1, 1}, {1, 1}, {1, 1});
  PartIndex qi;
  qi[ParallelDim::Outp] = {1, 0};
  const auto lr = proc_data_range(lrn, 1, q, qi);
  EXPECT_EQ(lr.ifm.beg[1], 3);
  EXPECT_EQ(lr.ifm.end[1], 10);
  EXPECT_TRUE(lr.fil.ifm.empty());
}

TEST(DataRange, ReverseHelpers) {
  // The fork's reverse_low / reverse_high (window 3, stride 2, extent 30).
  EXPECT_EQ(reverse_low(0, 30, 3, 2), 0);
  EXPECT_EQ(reverse_low(3, 30, 3, 2), 1);
  EXPECT_EQ(reverse_low(4, 30, 3, 2), 1);
  EXPECT_EQ(reverse_high(10, 30, 3, 2), 5);
  EXPECT_EQ(reverse_high(29, 30, 3, 2), 13);
  EXPECT_EQ(reverse_high(30, 30, 3, 2), 13);
}

TEST(DataLayoutOps, NhopsToAndForwarding) {
  // A 1x1-partitioned ofmap on one node at (0,0); two destinations.
  DataLayout dl;
  dl.frngs.push_back(FmapRange{{0, 0, 0, 0}, {1, 4, 2, 2}});
  dl.regions.push_back(NodeRegion::rectangle({1, 1}, {0, 0}, RegionType::Dram));
  dl.parts.push_back(PartitionScheme{});
  const FmapRange fr{{0, 0, 0, 0}, {1, 2, 2, 2}};  // 8 elements
  EXPECT_EQ(nhops_to(dl, fr, {{0, 1}, {0, 3}}), 8 * 1 + 8 * 3);
  // Forwarding: nearest fetches (8), then MST over {(0,1),(0,3)} (2 hops) * 8.
  EXPECT_EQ(nhops_to(dl, fr, {{0, 3}, {0, 1}}, true), 8 + 8 * 2);
  // Padding halos outside the stored range cost nothing (§11.18).
  const FmapRange halo{{0, 0, -1, -1}, {1, 2, 3, 3}};
  EXPECT_EQ(nhops_to(dl, halo, {{0, 1}}), 8);
  // Concatenation offsets channels.
  const auto cat = concat({dl, dl});
  EXPECT_EQ(complete_fmap_range(cat), (FmapRange{{0, 0, 0, 0}, {1, 8, 2, 2}}));
  EXPECT_EQ(mst_weight({{0, 0}}, {{0, 2}, {2, 0}, {0, 2}}), 4);
  EXPECT_EQ(mst_weight({{0, 0}, {3, 3}}, {{3, 2}, {0, 1}}), 2);
}

TEST(UnitNhops, LocalOfmapsCostNothingAndForwardingNeverCostsMore) {
  const auto proc = NodeRegion::rectangle({2, 2}, {0, 0}, RegionType::Proc);
  const auto dram = NodeRegion::rectangle({1, 1}, {0, 0}, RegionType::Dram);
  const auto conv = model::make_conv(8, 8, {8, 8}, {3, 3});
  const auto p = make_part(kOrder0, {2, 1}, {1, 2}, {1, 1}, {1, 1});
  model::SearchOptions opt;
  const auto ifl = input_layouts(8, {10, 10}, 2, dram, opt).at(0);
  const auto local = ofmap_layout(conv, 2, p, proc);
  const auto plain = unit_nhops_to_proc_region(conv, 2, proc, p, {{0, 0}}, ifl, local, opt);
  EXPECT_EQ(plain[DataCategory::Ofm], 0.0);
  EXPECT_GT(plain[DataCategory::Fil], 0.0);
  EXPECT_GT(plain[DataCategory::Ifm], 0.0);
  const auto remote = ofmap_layout(conv, 2, p, dram);
  const auto r1 = unit_nhops_to_proc_region(conv, 2, proc, p, {{0, 0}}, ifl, remote, opt);
  EXPECT_GT(r1[DataCategory::Ofm], 0.0);
  opt.hw_access_forwarding = true;
  const auto r2 = unit_nhops_to_proc_region(conv, 2, proc, p, {{0, 0}}, ifl, remote, opt);
  for (auto d : all_values<DataCategory>()) EXPECT_LE(r2[d], r1[d]);
}

}  // namespace
}  // namespace kapla::mapping
