#include "emit/layer_program.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "emit/node_pieces.hpp"
#include "emit/program_template.hpp"
#include "mapping/part_layer.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::emit {
namespace {

constexpr std::array<const char*, 3> kLoopVar = {"i", "o", "b"};  // IFM, OFM, BAT loops

// A double literal of the emitted program: the shortest text that reads back as the same value
// (the model's figures are finite), with ".0" when it would read as an integer.
std::string number(double v) {
  std::string t = shortest_text(v);
  if (t.find_first_of(".e") == std::string::npos) t += ".0";
  return t;
}

template <class T>
std::string list3(const T& a, const T& b, const T& c) {
  std::ostringstream s;
  s << "{" << a << ", " << b << ", " << c << "}";
  return s.str();
}

std::string bools(const PerDataCategory<bool>& v) {
  auto b = [](bool x) { return x ? "true" : "false"; };
  return list3(b(v[DataCategory::Fil]), b(v[DataCategory::Ifm]), b(v[DataCategory::Ofm]));
}

std::string doubles(const PerDataCategory<double>& v) {
  return list3(number(v[DataCategory::Fil]), number(v[DataCategory::Ifm]),
               number(v[DataCategory::Ofm]));
}

// The loops of a level from outer to inner (bl_ords: larger position = outer).
std::vector<LoopDim> outer_to_inner(const PerLoopDim<int>& ord) {
  std::vector<LoopDim> loops = {LoopDim::Ifm, LoopDim::Ofm, LoopDim::Bat};
  std::sort(loops.begin(), loops.end(), [&](LoopDim a, LoopDim b) { return ord[a] > ord[b]; });
  return loops;
}

// The kernels of a layer's kind, or an InputError naming what is not emitted yet. A
// back-propagation layer runs as the forward layer the fork prices it as (mapping::part_layer:
// an input-gradient layer is the forward layer over the gradient, channels swapped); the
// weight-gradient kinds (read-write FIL) are not emitted.
enum class Kernel { Conv, Depthwise, LocalRegion };

Kernel kernel_of(const LayerScheme& s, const mapping::PartLayer& pl,
                 const cost::NestedLoopDesc& nld, Target target) {
  using model::LayerType;
  const auto& p = s.problem;
  const std::string what = "emit: layer " + s.name + ": ";
  if (!s.eval.valid())
    throw InputError(what + "the scheme is invalid (" +
                     std::string(cost::invalid_reason_name(s.eval.invalid)) + ")");
  if (target == Target::Hls && p.resource.array_mapping != model::ArrayMapping::RowStationary)
    throw InputError(what +
                     "the HLS target writes the row-stationary PE array; a systolic scheme is "
                     "emitted with --target loops");
  const auto t = p.layer.type;
  std::optional<Kernel> k;
  if (t == LayerType::Conv || t == LayerType::FC || t == LayerType::ConvBackAct ||
      t == LayerType::FCBackAct)
    k = Kernel::Conv;
  if (t == LayerType::DWConv || t == LayerType::DWConvBackAct) k = Kernel::Depthwise;
  // A local region over channels (nreg > 1, LRN-like) other than an element-wise sum is not
  // emitted: its ifmap window over channels is not what the model counts.
  if (t == LayerType::Pooling || t == LayerType::PoolingBack || t == LayerType::Eltwise ||
      ((t == LayerType::LocalRegion || t == LayerType::LocalRegionBack) && p.layer.nreg == 1))
    k = Kernel::LocalRegion;
  if (!k)
    throw InputError(what +
                     "only Conv, FC, depthwise, Pooling and Eltwise layers and their "
                     "input-gradient kinds are emitted so far (got " +
                     std::string(model::type_name(t)) + ")");
  using mapping::LoopSet;
  const PerDataCategory<LoopSet> channel_loops{
      {LoopSet{}, LoopSet{LoopDim::Ofm, LoopDim::Bat}, LoopSet{LoopDim::Ofm, LoopDim::Bat}}};
  const PerDataCategory<LoopSet> depthwise_loops{{LoopSet{LoopDim::Ofm},
                                                  LoopSet{LoopDim::Ofm, LoopDim::Bat},
                                                  LoopSet{LoopDim::Ofm, LoopDim::Bat}}};
  bool loops_ok = false;
  switch (*k) {
    case Kernel::Conv:
      loops_ok = nld.has_conv_data_loops() && pl.p_layer.type == LayerType::Conv;
      break;
    case Kernel::Depthwise:
      loops_ok = nld.data_loops == depthwise_loops && nld.loopcnt[LoopDim::Ifm] == 1 &&
                 pl.p_layer.type == LayerType::DWConv;
      break;
    case Kernel::LocalRegion:
      loops_ok = nld.data_loops == channel_loops && nld.loopcnt[LoopDim::Ifm] == 1;
      break;
  }
  if (!loops_ok || nld.rw_data != DataCategory::Ofm)
    throw InternalError(what + "the NLD's data loops are not those of its kind");
  return *k;
}

// The schedule as the customization primitives an Allo user would write for the same loop
// nest (issue 21 item 3), one per line, as comments: split each loop into its three levels,
// reorder, place each category's buffer at its level (or say it bypasses GBUF), spread the
// node partition and unfold the unit pass onto the PE array.
std::string allo_primitives(const LayerScheme& s, const cost::LoopBlockingEval& ev,
                            const cost::MapGeometry& geo, const PerLoopDim<std::int64_t>& loopcnt) {
  constexpr std::array<const char*, 3> kTensor = {"W", "I", "O"};  // FIL, IFM, OFM
  constexpr std::array<std::array<bool, 3>, 3> kRelated = {
      {{true, true, false}, {true, false, true}, {false, true, true}}};
  const auto& t = ev.blocking.bl_ts;
  std::ostringstream o;
  o << "// The same schedule as Allo customization primitives (compare line by line; not run):\n";
  for (int li = 0; li < 3; ++li) {
    const auto l = static_cast<LoopDim>(li);
    o << "//   s.split(\"" << kLoopVar[li] << "\", factors=[" << t[0][l] << ", " << t[1][l] << ", "
      << t[2][l] << "])  # -> " << kLoopVar[li] << "0, " << kLoopVar[li] << "1, " << kLoopVar[li]
      << "2";
    if (t[0][l] * t[1][l] * t[2][l] != loopcnt[l])
      o << " over " << loopcnt[l] << " units: a partial last block";
    o << "\n";
  }
  std::vector<std::string> order;
  std::array<std::string, 2> innermost_related_axis[3];
  for (int bl = 0; bl < 2; ++bl) {
    for (LoopDim l : outer_to_inner(ev.blocking.bl_ords[static_cast<std::size_t>(bl)])) {
      const std::string axis = kLoopVar[static_cast<int>(l)] + std::to_string(bl);
      order.push_back(axis);
      for (int d = 0; d < 3; ++d)
        if (kRelated[static_cast<std::size_t>(d)][static_cast<std::size_t>(l)])
          innermost_related_axis[d][static_cast<std::size_t>(bl)] = axis;
    }
  }
  o << "//   s.reorder(";
  for (const auto& a : order) o << "\"" << a << "\", ";
  o << "\"i2\", \"o2\", \"b2\")\n";
  for (auto d : all_values<DataCategory>()) {
    const int di = static_cast<int>(d);
    if (ev.stored_in_gbuf[d])
      o << "//   s.buffer_at(" << kTensor[di] << ", axis=\"" << innermost_related_axis[di][0]
        << "\")  # GBUF tile\n";
    else
      o << "//   # " << kTensor[di] << " bypasses GBUF: DRAM -> REGF\n";
    o << "//   s.buffer_at(" << kTensor[di] << ", axis=\"" << innermost_related_axis[di][1]
      << "\")  # REGF tile\n";
  }
  const auto& part = s.part;
  o << "//   s.partition(nodes, OUTP=" << part.size(ParallelDim::Outp)
    << ", OFMP=" << part.size(ParallelDim::Ofmp) << ", BATP=" << part.size(ParallelDim::Batp)
    << ", INPP=" << part.size(ParallelDim::Inpp) << ")  # " << part.size()
    << " node(s), one piece each\n";
  o << "//   s.unfold(\"unit_pass\", pe=[" << s.problem.resource.dim_array.h << ", "
    << s.problem.resource.dim_array.w << "])  # ";
  if (s.problem.resource.array_mapping == model::ArrayMapping::Systolic)
    o << "systolic: output positions x output channels, " << geo.fold.h << " position fold(s), "
      << geo.fold.w << " channel fold(s)";
  else
    o << "row stationary: " << geo.fold.h << " filter-row group(s), " << geo.fold.w
      << " ofmap-row fold(s)";
  o << ", replication " << geo.repl.h << "x" << geo.repl.w << "\n";
  return o.str();
}

// The node partition as the program's table: one piece per node (gen_pidx order), the node
// holding the ceil piece, and the partition in words.
std::string node_table(const mapping::PartitionScheme& part, const NodePieces& nodes) {
  std::ostringstream o;
  o << "// The node partition: one piece per node (gen_pidx order); the model prices every node as "
       "node CEIL_NODE's piece (part_layer's ceil piece).\n";
  o << "constexpr const char* PARTITION = \"";
  constexpr std::array<const char*, 4> kName = {"OUTP", "OFMP", "BATP", "INPP"};
  for (std::size_t i = 0; i < part.order.size(); ++i) {
    const auto pae = part.order[i];
    o << (i ? " " : "") << kName[static_cast<std::size_t>(pae)] << " " << part.pdims[pae].h << "x"
      << part.pdims[pae].w;
  }
  o << "\";\n";
  o << "constexpr i64 NODE_COUNT = " << nodes.nodes.size() << ", CEIL_NODE = " << nodes.ceil_node
    << ";\n";
  o << "// {n0, n1, c0, c1, m0, m1, h0, h1, w0, w1}: samples, input and output channels, ofmap "
       "rows "
       "and columns.\nconstexpr Piece NODES[NODE_COUNT] = {\n";
  for (const auto& p : nodes.nodes)
    o << "    {" << p.n.beg << ", " << p.n.end << ", " << p.c.beg << ", " << p.c.end << ", "
      << p.m.beg << ", " << p.m.end << ", " << p.h.beg << ", " << p.h.end << ", " << p.w.beg << ", "
      << p.w.end << "},\n";
  o << "};\n";
  return o.str();
}

}  // namespace

std::string emit_layer_program(const LayerScheme& s, Target target) {
  // The per-node layer and its mapping, as the pricing pipeline derives them (the node region
  // and its buffer sharing are not needed: the evaluation carries what they decided).
  const auto pl = mapping::part_layer(s.problem.layer, s.problem.batch, s.part);
  const auto map = pricing::map_partitioned_layer(s.problem, pl);
  if (s.nld_index < 0 || static_cast<std::size_t>(s.nld_index) >= map.nlds.size())
    throw InputError("emit: layer " + s.name + ": nld_index " + std::to_string(s.nld_index) +
                     " out of range (" + std::to_string(map.nlds.size()) + " NLDs)");
  const auto& nld = map.nlds[static_cast<std::size_t>(s.nld_index)];
  const auto& geo = map.nld_geometry[static_cast<std::size_t>(s.nld_index)];
  const Kernel kernel = kernel_of(s, pl, nld, target);
  // Each loop's trip counts cover its units, exactly or with a remainder (imperfect: full, the
  // cost model's blocks_cover): the nest guards the last block of a level that has a remainder,
  // GBUF (fewer REGF blocks in the last GBUF block) or REGF (fewer units in the last REGF block).
  const auto& bt = s.eval.blocking.bl_ts;
  std::array<PerLoopDim<bool>, 3> partial{};  // [level 1, 2]: its last block is partial
  for (auto l : all_values<LoopDim>()) {
    const std::int64_t n = nld.loopcnt[l];
    if (!cost::blocks_cover(bt[0][l], bt[1][l], bt[2][l], n))
      throw InputError("emit: layer " + s.name + ": the trip counts of loop " +
                       std::string(name_of(l)) + " do not cover its " + std::to_string(n) +
                       " units");
  }
  // The REGF blocks that run (the model's trips_above) are fewer than t0 t1 when the last GBUF
  // block is partial.
  const auto runs = cost::trips_above(s.eval.blocking, nld.loopcnt);
  for (auto l : all_values<LoopDim>()) {
    partial[1][l] = runs[2][l] != bt[0][l] * bt[1][l];
    partial[2][l] = nld.loopcnt[l] % bt[2][l] != 0;
  }
  const bool local = kernel == Kernel::LocalRegion;
  const bool systolic = s.problem.resource.array_mapping == model::ArrayMapping::Systolic;
  const auto& ev = s.eval;
  // Every node's piece of the layer; the program's layer is the whole one.
  const NodePieces split = node_pieces(s.problem.layer, s.problem.batch, s.part, pl);
  if (static_cast<std::int64_t>(split.nodes.size()) != ev.num_nodes)
    throw InternalError("emit: layer " + s.name + ": the partition has " +
                        std::to_string(split.nodes.size()) + " nodes, the model priced " +
                        std::to_string(ev.num_nodes));
  const auto& L = split.whole;
  // The batch loop's units: sample pieces x ofmap-row pieces x ofmap-column pieces. Row
  // stationary: one sample x a fold of ofmap rows (all columns). Systolic: a piece of samples x
  // one of the mapping's position folds, split into rows and columns as its unit pass is.
  const std::int64_t bat = nld.loopcnt[LoopDim::Bat];
  const PhyDim2 pieces =
      systolic ? cost::systolic_position_folds(geo.fold.h) : PhyDim2{geo.fold.w, 1};
  const std::int64_t sample_pieces = systolic ? bat / geo.fold.h : pl.p_batch;
  if (sample_pieces * pieces.size() != bat)
    throw InternalError("emit: layer " + s.name + ": batch loop count is not samples x folds");

  const double nodes = static_cast<double>(ev.num_nodes);
  // The model's per-layer counts back to one node (access forwarding divides a group's DRAM
  // fetches among its nodes; on-chip sources and destinations move DRAM counts to remote GBUF).
  PerDataCategory<double> model_dram{}, model_gbuf{}, model_itcn{}, model_regf{}, gbuf_words{};
  PerDataCategory<double> total_dram{};
  PerDataCategory<std::int64_t> subgroup{}, accfwd{};
  for (auto d : all_values<DataCategory>()) {
    const double moved = ev.remote_gbuf_access[d];
    total_dram[d] = ev.access[MemLevel::Dram][d] + moved;
    accfwd[d] = ev.accfwd_reduction[d];
    model_dram[d] = total_dram[d] * static_cast<double>(accfwd[d]) / nodes;
    model_gbuf[d] = ev.access[MemLevel::Gbuf][d] / nodes;
    model_itcn[d] = ev.access[MemLevel::Itcn][d] / nodes;
    model_regf[d] = ev.access[MemLevel::Regf][d] / nodes;
    gbuf_words[d] = ev.size[0][d];
    subgroup[d] = ev.bufshr.subgrp_size[d];
  }
  const auto& t = ev.blocking.bl_ts;

  std::ostringstream o;
  o << "// Emitted by kapla (docs/emit.md): layer " << s.name
    << ",\n// every node's piece of partition " << s.part.size() << " nodes, NLD " << s.nld_index
    << ", blocking and orders as the cost model priced them.\n// Build: c++ -O2 THIS_FILE; run: "
       "./a.out [--count-only]. Exit 0 when every count matches the model\n// and the output "
       "equals the naive loop nest.\n";
  o << allo_primitives(s, ev, geo, nld.loopcnt);
  o << detail::kProgramHead;
  o << "// The layer: C input channels, M output channels, N samples, EH x EW ofmap, RH x RW "
       "filter, UH x UW stride.\n";
  // A local region's window plays the filter's part (RH x RW), over NREG inputs if element-wise.
  const PhyDim2 window = local ? L.sreg : L.sfil;
  o << "constexpr i64 C = " << L.nifm << ", M = " << L.nofm << ", N = " << s.problem.batch
    << ", EH = " << L.sofm.h << ", EW = " << L.sofm.w << ", RH = " << window.h
    << ", RW = " << window.w << ", UH = " << L.strd.h << ", UW = " << L.strd.w << ";\n";
  if (local)
    o << "constexpr i64 NREG = " << L.nreg << ";\nconstexpr bool ELTWISE = "
      << (s.problem.layer.type == model::LayerType::Eltwise ? "true" : "false") << ";\n";
  if (systolic) {
    o << "// Systolic mapping: a unit pass reads each of its words once (FOLD_H = 1); the batch "
         "loop's units are NB sample pieces x TH ofmap-row x TW ofmap-column pieces.\n";
    o << "constexpr i64 FOLD_H = 1";
  } else {
    o << "// Row-stationary mapping: FOLD_H filter-row groups per unit pass; the batch loop's "
         "units are NB samples x TH ofmap-row folds (TW = 1: every column).\n";
    o << "constexpr i64 FOLD_H = " << geo.fold.h;
  }
  o << ", NB = " << sample_pieces << ", TH = " << pieces.h << ", TW = " << pieces.w << ";\n";
  o << "constexpr bool SIZED_BY_MEAN = " << (systolic ? "true" : "false")
    << ";  // the model sizes GBUF for the mean piece (systolic) or the largest\n";
  if (!systolic) {
    const auto& repl = map.nld_replicas[static_cast<std::size_t>(s.nld_index)];
    // Conv replicas are (input, output) channel pairs; a channel-wise kind's replicas are its
    // channels (one input replica).
    o << "// The physical PE set: the folded logical set of FLPE_H x FLPE_W = PES PEs, "
         "replicated REPL_I x REPL_O times (input x output channels) per unit pass.\n"
         "constexpr i64 FLPE_H = "
      << geo.dim_flpeset.h << ", FLPE_W = " << geo.dim_flpeset.w
      << ", PES = FLPE_H * FLPE_W, REPL_I = "
      << (kernel == Kernel::Conv ? repl[DataCategory::Ifm] : 1)
      << ", REPL_O = " << repl[DataCategory::Ofm] << ";\n";
  }
  o << "// Channel pieces per unit (the NLD's IFM and OFM loop counts).\nconstexpr i64 CU = "
    << nld.loopcnt[LoopDim::Ifm] << ", MU = " << nld.loopcnt[LoopDim::Ofm] << ";\n";
  o << "// Blocking factors T[level][loop]: level 0 outermost (DRAM -> GBUF), 1 (GBUF -> REGF), "
       "2 inside REGF,\n// covering each loop's LOOPCNT units: exactly, or with a partial last "
       "block per level (imperfect: full; trips1, trips2).\nconstexpr i64 T[3][3] = {";
  for (int bl = 0; bl < 3; ++bl)
    o << (bl ? ", " : "") << list3(t[bl][LoopDim::Ifm], t[bl][LoopDim::Ofm], t[bl][LoopDim::Bat]);
  o << "};\n";
  o << "constexpr i64 LOOPCNT[3] = "
    << list3(nld.loopcnt[LoopDim::Ifm], nld.loopcnt[LoopDim::Ofm], nld.loopcnt[LoopDim::Bat])
    << ";\n";
  o << "constexpr bool STORED[3] = " << bools(ev.stored_in_gbuf)
    << ";  // kept in GBUF (else bypassed)\n";
  o << "constexpr bool REGF_REUSABLE[3] = " << bools(nld.regf_reusable) << ";\n";
  o << "constexpr bool FILTER_PINNED = " << (ev.filter_pinned ? "true" : "false") << ";\n";
  o << "constexpr i64 SUBGROUP[3] = "
    << list3(subgroup[DataCategory::Fil], subgroup[DataCategory::Ifm], subgroup[DataCategory::Ofm])
    << ";  // GBUF sharing subgroups\n";
  o << "// The cost model's figures for one node.\n";
  o << "constexpr double MODEL_DRAM[3] = " << doubles(model_dram) << ";\n";
  o << "constexpr double MODEL_GBUF[3] = " << doubles(model_gbuf) << ";\n";
  o << "constexpr double MODEL_ITCN[3] = " << doubles(model_itcn) << ";\n";
  o << "constexpr double MODEL_REGF[3] = " << doubles(model_regf) << ";\n";
  o << "constexpr double MODEL_GBUF_WORDS[3] = " << doubles(gbuf_words) << ";\n";
  o << "constexpr double MODEL_OPS = " << number(ev.ops / nodes) << ";\n";
  o << "constexpr double OCCUPANCY = " << number(pl.p_occupancy) << ";\n";
  o << "// The cost model's figures for the whole layer (DRAM: with the words it moves to remote "
       "GBUFs); a group of ACCFWD[d] nodes fetches d from DRAM once (access forwarding).\n";
  o << "constexpr double MODEL_TOTAL_DRAM[3] = " << doubles(total_dram) << ";\n";
  o << "constexpr double MODEL_TOTAL_GBUF[3] = " << doubles(ev.access[MemLevel::Gbuf]) << ";\n";
  o << "constexpr double MODEL_TOTAL_ITCN[3] = " << doubles(ev.access[MemLevel::Itcn]) << ";\n";
  o << "constexpr double MODEL_TOTAL_REGF[3] = " << doubles(ev.access[MemLevel::Regf]) << ";\n";
  o << "constexpr double MODEL_TOTAL_OPS = " << number(ev.ops) << ";\n";
  o << "constexpr i64 ACCFWD[3] = "
    << list3(accfwd[DataCategory::Fil], accfwd[DataCategory::Ifm], accfwd[DataCategory::Ofm])
    << ";\n";
  o << node_table(s.part, split);
  o << detail::kProgramCommon;
  // The kind's data, then either the unit pass as a plain loop with the bus words by formula
  // (loop-nest target) or the PE array that counts them (HLS target).
  const bool hls = target == Target::Hls;
  // A systolic array's bus moves each word of a fill once, whatever the kind.
  const char* bus_formula = detail::kSystolicBusFormula;
  switch (kernel) {
    case Kernel::Conv:
      o << detail::kConvKernels;
      if (!systolic) bus_formula = detail::kConvBusFormula;
      o << bus_formula;
      if (!hls) o << detail::kConvUnitPass;
      break;
    case Kernel::Depthwise:
      o << detail::kDepthwiseKernels << detail::kChannelwiseNaive;
      if (!systolic) bus_formula = detail::kDepthwiseBusFormula;
      o << bus_formula;
      if (!hls) o << detail::kChannelwisePass;
      break;
    case Kernel::LocalRegion:
      o << detail::kLocalRegionKernels << detail::kChannelwiseNaive;
      if (!systolic) bus_formula = detail::kLocalRegionBusFormula;
      o << bus_formula;
      if (!hls) o << detail::kChannelwisePass;
      break;
  }
  o << detail::kBuffers << (hls ? detail::kPeArray : detail::kBusByFormula)
    << detail::kVisitAndNode;

  // The loop nest, in the scheme's order. A loop blocked with a remainder runs fewer trips in
  // its last block at levels 1 and 2 (trips1, trips2): the guarded last block of Ruby-T.
  std::string indent = "  ";
  int depth = 0;
  for (int bl = 0; bl < 2; ++bl) {
    for (LoopDim l : outer_to_inner(ev.blocking.bl_ords[static_cast<std::size_t>(bl)])) {
      const int li = static_cast<int>(l);
      const std::string x = "x" + std::to_string(bl) + "[" + std::to_string(li) + "]";
      const std::string bound =
          bl == 1 && partial[1][l]
              ? "trips1(" + std::to_string(li) + ", x0[" + std::to_string(li) + "])"
              : "T[" + std::to_string(bl) + "][" + std::to_string(li) + "]";
      o << indent << "for (" << x << " = 0; " << x << " < " << bound << "; ++" << x << ") {  // "
        << kLoopVar[li] << bl << (bl == 1 && partial[1][l] ? ", the last block partial" : "")
        << "\n";
      indent += "  ";
      ++depth;
    }
  }
  o << indent << "visit(x0, x1);\n";
  // The level-2 loops: the loop-nest target runs them only to compute; the HLS target's PE
  // array also counts the bus words of the tiles just refilled, so it runs them always.
  if (!hls) o << indent << "if (compute)\n";
  for (int li = 0; li < 3; ++li) {
    const std::string bound = partial[2][static_cast<LoopDim>(li)]
                                  ? "trips2(" + std::to_string(li) + ", x0[" + std::to_string(li) +
                                        "] * T[1][" + std::to_string(li) + "] + x1[" +
                                        std::to_string(li) + "])"
                                  : "T[2][" + std::to_string(li) + "]";
    o << indent << "  for (x2[" << li << "] = 0; x2[" << li << "] < " << bound << "; ++x2[" << li
      << "])\n";
  }
  const std::string pass = hls ? "pe_array(x2, " : "unit_pass(";
  const std::string cont(pass.size(), ' ');
  o << indent << "    " << pass << "(x0[0] * T[1][0] + x1[0]) * T[2][0] + x2[0],\n"
    << indent << "    " << cont << "(x0[1] * T[1][1] + x1[1]) * T[2][1] + x2[1],\n"
    << indent << "    " << cont << "(x0[2] * T[1][2] + x1[2]) * T[2][2] + x2[2]"
    << (hls ? ", compute" : "") << ");\n";
  if (hls) o << indent << "commit_bus();\n";
  for (int i = 0; i < depth; ++i) {
    indent.resize(indent.size() - 2);
    o << indent << "}\n";
  }
  o << detail::kProgramTail;
  return o.str();
}

}  // namespace kapla::emit
