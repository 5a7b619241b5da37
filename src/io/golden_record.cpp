// Golden record parsing.
#include "io/golden_record.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "io/json_util.hpp"

namespace kapla::io::golden {

using nlohmann::json;

double to_double(const json& j) {
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    throw std::runtime_error("golden: not a number: " + s);
  }
  return j.get<double>();
}

namespace {

// An integer field: io's checked as_int (nlohmann's get<T>() would cast a float such as 1e103,
// undefined behaviour), narrowed to T only within T's range; a golden file is input like any
// other.
template <class T>
T integer(const json& j) {
  const std::int64_t v = as_int(j, "");
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
    throw InputError("integer out of range: " + brief(j));
  }
  return static_cast<T>(v);
}

PhyDim2 dim2(const json& j) {
  return {integer<std::int64_t>(j.at(0)), integer<std::int64_t>(j.at(1))};
}

PhyDim2 hw(const json& j, const char* h, const char* w) {
  return {integer<std::int64_t>(j.at(h)), integer<std::int64_t>(j.at(w))};
}

}  // namespace

model::Layer parse_layer(const json& j) {
  using namespace model;
  const auto cls = j.at("type").get<std::string>();
  const auto n = [&](const char* k) { return integer<std::int64_t>(j.at(k)); };
  if (cls == "ConvLayer") {
    return make_conv(n("nifm"), n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                     hw(j, "htrd", "wtrd"));
  }
  if (cls == "FCLayer") return make_fc(n("nifm"), n("nofm"), hw(j, "hfil", "wfil"));
  if (cls == "DepthwiseConvolutionLayer") {
    return make_dwconv(n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                       hw(j, "htrd", "wtrd"));
  }
  if (cls == "LocalRegionLayer") {
    return make_local_region(n("nofm"), hw(j, "hofm", "wofm"), n("nreg"), hw(j, "hreg", "wreg"),
                             n("ntrd"), hw(j, "htrd", "wtrd"));
  }
  if (cls == "PoolingLayer") {
    return make_pooling(n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hreg", "wreg"),
                        hw(j, "htrd", "wtrd"));
  }
  if (cls == "EltwiseLayer") return make_eltwise(n("nofm"), hw(j, "hofm", "wofm"), n("nreg"));
  if (cls == "ConvBackActLayer") {
    return make_conv_back_act(n("nifm"), n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                              hw(j, "htrd", "wtrd"));
  }
  if (cls == "ConvBackWeightLayer") {
    return make_conv_back_weight(n("nifm"), n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                                 hw(j, "htrd", "wtrd"));
  }
  if (cls == "FCBackActLayer") return make_fc_back_act(n("nifm"), n("nofm"), hw(j, "hfil", "wfil"));
  if (cls == "FCBackWeightLayer") {
    return make_fc_back_weight(n("nifm"), n("nofm"), hw(j, "hfil", "wfil"));
  }
  if (cls == "LocalRegionBackLayer") {
    return make_local_region_back(n("nofm"), hw(j, "hofm", "wofm"), n("nreg"),
                                  hw(j, "hreg", "wreg"), n("ntrd"), hw(j, "htrd", "wtrd"));
  }
  if (cls == "PoolingBackLayer") {
    return make_pooling_back(n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hreg", "wreg"),
                             hw(j, "htrd", "wtrd"));
  }
  if (cls == "EltwiseBackLayer") {
    return make_eltwise_back(n("nofm"), hw(j, "hofm", "wofm"), n("nreg"));
  }
  if (cls == "DepthwiseConvolutionBackActLayer") {
    return make_dwconv_back_act(n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                                hw(j, "htrd", "wtrd"));
  }
  if (cls == "DepthwiseConvolutionBackWeightLayer") {
    return make_dwconv_back_weight(n("nofm"), hw(j, "hofm", "wofm"), hw(j, "hfil", "wfil"),
                                   hw(j, "htrd", "wtrd"));
  }
  throw std::runtime_error("golden: unknown layer class " + cls);
}

mapping::NodeRegion parse_region(const json& j) {
  mapping::NodeRegion r;
  r.dim = dim2(j.at("dim"));
  r.origin = dim2(j.at("origin"));
  r.dist = dim2(j.at("dist"));
  r.type = j.at("type").get<std::string>() == "PROC" ? mapping::RegionType::Proc
                                                     : mapping::RegionType::Dram;
  r.wtot = integer<std::int64_t>(j.at("wtot"));
  r.wbeg = integer<std::int64_t>(j.at("wbeg"));
  return r;
}

mapping::Resource parse_resource(const json& j) {
  mapping::Resource r;
  r.proc_region = parse_region(j.at("proc_region"));
  r.dram_region = parse_region(j.at("dram_region"));
  r.src_data_region = parse_region(j.at("src_data_region"));
  r.dst_data_region = parse_region(j.at("dst_data_region"));
  r.dim_array = dim2(j.at("dim_array"));
  r.size_gbuf = integer<std::int64_t>(j.at("size_gbuf_words"));
  r.size_regf = integer<std::int64_t>(j.at("size_regf_words"));
  r.array_bus_width = to_double(j.at("array_bus_width_words"));
  r.dram_bandwidth = to_double(j.at("dram_bandwidth_words_per_cycle"));
  r.no_time_mux = j.at("no_time_mux").get<bool>();
  return r;
}

model::UnitCosts parse_cost(const json& j) {
  model::UnitCosts c;
  c.mac_op = to_double(j.at("mac_op"));
  for (auto me : all_values<MemLevel>())
    c.mem_hier[me] = to_double(j.at("mem_hier").at(index_of(me)));
  c.noc_hop = to_double(j.at("noc_hop"));
  c.idl_unit = to_double(j.at("idl_unit"));
  return c;
}

model::CostModelVariant variant_of(const std::string& model_field) {
  return model_field.rfind("kapla", 0) == 0 ? model::CostModelVariant::Kapla
                                            : model::CostModelVariant::Tangram;
}

model::SearchOptions parse_options(const json& j, const std::string& model_field) {
  model::SearchOptions o;
  for (auto d : all_values<DataCategory>())
    o.sw_gbuf_bypass[d] = j.at("sw_gbuf_bypass").at(index_of(d)).get<bool>();
  o.sw_solve_loopblocking = j.at("sw_solve_loopblocking").get<bool>();
  o.hw_access_forwarding = j.at("hw_access_forwarding").get<bool>();
  o.hw_gbuf_sharing = j.at("hw_gbuf_sharing").get<bool>();
  o.hw_gbuf_save_writeback = j.at("hw_gbuf_save_writeback").get<bool>();
  o.partition_hybrid = j.at("partition_hybrid").get<bool>();
  o.partition_batch = j.at("partition_batch").get<bool>();
  o.partition_ifmaps = j.at("partition_ifmaps").get<bool>();
  o.partition_interlayer = j.at("partition_interlayer").get<bool>();
  o.layer_pipeline_time_ovhd = to_double(j.at("layer_pipeline_time_ovhd"));
  o.layer_pipeline_max_degree = to_double(j.at("layer_pipeline_max_degree"));
  o.layer_pipeline_opt = j.at("layer_pipeline_opt").get<bool>();
  o.opt_goal = model::parse_goal(j.at("opt_goal").get<std::string>());
  o.ntops = integer<int>(j.at("ntops"));
  o.cost_model = variant_of(model_field);
  // kapla's extension (absent from the reference's records: off, as nn_dataflow has no variants).
  if (j.contains("rs_fold_variants")) o.rs_fold_variants = j.at("rs_fold_variants").get<bool>();
  // kapla's extension, written by scheme records when not none (docs/imperfect.md).
  if (j.contains("imperfect"))
    o.imperfect = model::parse_imperfect(j.at("imperfect").get<std::string>());
  return o;
}

mapping::PartitionScheme parse_part(const json& j) {
  mapping::PartitionScheme p;
  for (std::size_t i = 0; i < 4; ++i)
    p.order[i] = static_cast<ParallelDim>(integer<int>(j.at("order").at(i)));
  for (auto pae : all_values<ParallelDim>()) p.pdims[pae] = dim2(j.at("pdims").at(index_of(pae)));
  return p;
}

mapping::DataLayout parse_layout(const json& j) {
  mapping::DataLayout l;
  for (const auto& f : j.at("frngs")) {
    mapping::FmapRange r;
    for (std::size_t i = 0; i < 4; ++i) {
      r.beg[i] = integer<std::int64_t>(f.at("beg").at(i));
      r.end[i] = integer<std::int64_t>(f.at("end").at(i));
    }
    l.frngs.push_back(r);
  }
  for (const auto& r : j.at("regions")) l.regions.push_back(parse_region(r));
  for (const auto& p : j.at("parts")) l.parts.push_back(parse_part(p));
  return l;
}

FixedScheme parse_fixed_scheme(const json& j) {
  FixedScheme s;
  s.part = parse_part(j.at("part"));
  s.nld_index = integer<int>(j.at("nld_index"));
  for (std::size_t lvl = 0; lvl < 3; ++lvl) {
    for (auto le : all_values<LoopDim>())
      s.bl_ts[lvl][le] = integer<std::int64_t>(j.at("bl_ts").at(lvl).at(index_of(le)));
  }
  for (std::size_t lvl = 0; lvl < 2; ++lvl) {
    for (auto le : all_values<LoopDim>())
      s.bl_ords[lvl][le] = integer<int>(j.at("bl_ords").at(lvl).at(index_of(le)));
  }
  return s;
}

mapping::NodeRegion parse_region_list(const json& j) {
  mapping::NodeRegion r;
  r.dim = dim2(j.at(0));
  r.origin = dim2(j.at(1));
  r.dist = dim2(j.at(2));
  r.type = integer<int>(j.at(3)) == 0 ? mapping::RegionType::Proc : mapping::RegionType::Dram;
  r.wtot = integer<std::int64_t>(j.at(4));
  r.wbeg = integer<std::int64_t>(j.at(5));
  return r;
}

NetworkRunInputs parse_network_run(const json& record) {
  const json& res = record.at("result");
  NetworkRunInputs in;
  in.net = record.at("net").get<std::string>();
  in.batch = integer<std::int64_t>(res.at("batch"));
  const json& r = res.at("resource");
  in.resource.proc_region = parse_region_list(r.at("proc_region"));
  in.resource.dram_region = parse_region_list(r.at("dram_region"));
  in.resource.src_data_region = parse_region_list(r.at("src_data_region"));
  in.resource.dst_data_region = parse_region_list(r.at("dst_data_region"));
  in.resource.dim_array = dim2(r.at("dim_array"));
  in.resource.size_gbuf = integer<std::int64_t>(r.at("size_gbuf"));
  in.resource.size_regf = integer<std::int64_t>(r.at("size_regf"));
  in.resource.array_bus_width = to_double(r.at("array_bus_width"));
  in.resource.dram_bandwidth = to_double(r.at("dram_bandwidth"));
  in.resource.no_time_mux = r.at("no_time_mux").get<bool>();
  in.cost = parse_cost(res.at("cost"));
  in.options = parse_options(res.at("options"), record.at("model").get<std::string>());
  return in;
}

std::vector<json> read_jsonl(const std::string& path) {
  // The golden files are larger than any input kapla reads whole (scheme_evals: 18 MB).
  constexpr std::uintmax_t kMaxGoldenBytes = std::uintmax_t{1} << 30;
  std::istringstream in(read_text_file(path, kMaxGoldenBytes));
  std::vector<json> out;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    try {
      out.push_back(parse_json_text(line));
    } catch (const InputError& e) {
      throw InputError(path + ": line " + std::to_string(n) + ": " + e.what());
    }
  }
  return out;
}

void parse_record_line(std::string_view line) {
  const json rec = parse_json_text(line);
  parsing_record([&] {
    if (rec.at("kind").get<std::string>() == "network_run") {
      (void)parse_network_run(rec);
      return;
    }
    const json& in = rec.at("inputs");
    (void)parse_layer(in.at("layer"));
    (void)integer<std::int64_t>(in.at("batch_size"));
    (void)parse_resource(in.at("resource"));
    (void)parse_cost(in.at("cost"));
    (void)parse_options(in.at("options"), rec.at("model").get<std::string>());
    (void)parse_layout(in.at("ifmap_layout"));
    if (in.contains("scheme")) (void)parse_fixed_scheme(in.at("scheme"));
  });
}

bool rel_equal(double a, double b, double rel) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

pricing::LayerProblem parse_layer_problem(const json& rec) {
  const json& in = rec.at("inputs");
  pricing::LayerProblem p;
  p.layer = parse_layer(in.at("layer"));
  p.batch = integer<std::int64_t>(in.at("batch_size"));
  p.resource = parse_resource(in.at("resource"));
  if (rec.value("array_mapping", std::string("eyeriss")) == "systolic") {
    p.resource.array_mapping = model::ArrayMapping::Systolic;
  }
  p.costs = parse_cost(in.at("cost"));
  p.options = parse_options(in.at("options"), rec.at("model").get<std::string>());
  if (in.contains("constraint") && !in.at("constraint").is_null()) {
    const json& c = in.at("constraint");
    p.constraint.topbat = c.value("topbat", std::int64_t{0});
    p.constraint.topifm = c.value("topifm", std::int64_t{0});
    p.constraint.topofm = c.value("topofm", std::int64_t{0});
    if (c.contains("spec")) {
      p.constraint.fbifm = c.at("spec").value("fbifm", false);
      p.constraint.fbofm = c.at("spec").value("fbofm", false);
    }
  }
  p.ifmap_layout = parse_layout(in.at("ifmap_layout"));
  for (std::size_t i = 0; i < 3; ++i) p.sched_seq[i] = integer<int>(in.at("sched_seq").at(i));
  return p;
}

}  // namespace kapla::io::golden
