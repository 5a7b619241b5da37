// Where an imported network lists the producer of a MatMul's B operand (docs/onnx.md, "Layer
// order"). nn_dataflow's scheduling order is a depth-first order of the DAG that keeps sibling
// layers in file order (schedule/sched_dag.cpp), and a segment is a run of that order. In an
// attention block the ONNX node order is Q, K, V, scores, softmax, attention x V: V's
// projection, a sibling of Q's, then lands between the softmax and attention x V and keeps
// the probabilities, which could stay on chip as attention x V's A, out of its segment.
#pragma once

#include <nlohmann/json.hpp>

namespace kapla::io {

/// Moves, in a network document, the producer of each MatMul's B operand to just after its
/// own last input layer (to the front when it reads only network inputs) when the MatMul's A
/// may stay on chip (model::Network::forwards_on_chip; with several heads a projection read
/// as heads is a reshape and goes through DRAM anyway) and nothing else reads that producer.
/// Every other layer keeps its place; the order stays topological and the network the same
/// DAG. A document that does not parse is left as it is (loading it reports why).
void list_matmul_b_producers_early(nlohmann::json& doc);

}  // namespace kapla::io
