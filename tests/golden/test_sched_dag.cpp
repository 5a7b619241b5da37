// The scheduling DAG equals the reference's dag_vertices for every zoo network, upstream and
// the KAPLA fork's (incl. the _bp training networks). Spec: nn_dataflow-spec.md §9.4, §12.8.
#include <gtest/gtest.h>

#include "schedule/sched_dag.hpp"
#include "zoo_network.hpp"

namespace kapla {
namespace {

void expect_dag_matches(const std::string& file) {
  int checked = 0;
  for (const auto& name : test::zoo_network_names(file)) {
    const auto& rec = test::zoo_table(file).at("networks").at(name);
    const auto net = test::zoo_network(file, name);
    const auto dag = schedule::build_sched_dag(net);
    const auto& want = rec.at("dag_vertices");
    ASSERT_EQ(dag.size(), want.size()) << file << " " << name;
    for (std::size_t v = 0; v < dag.size(); ++v) {
      ASSERT_EQ(dag.vertices[v].size(), want[v].size()) << name << " vertex " << v;
      for (std::size_t i = 0; i < dag.vertices[v].size(); ++i) {
        ASSERT_EQ(net.layer_name(dag.vertices[v][i]), want[v][i].get<std::string>())
            << name << " vertex " << v << " position " << i;
      }
    }
    // Invariants: prevs/nexts are mutually consistent and point backwards/forwards.
    for (std::size_t v = 0; v < dag.size(); ++v) {
      for (int p : dag.prevs[v]) {
        EXPECT_LT(p, static_cast<int>(v)) << name;
        if (p >= 0) {
          const auto& n = dag.nexts[static_cast<std::size_t>(p)];
          EXPECT_NE(std::find(n.begin(), n.end(), static_cast<int>(v)), n.end()) << name;
        }
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(SchedDag, MatchesUpstreamZoo) { expect_dag_matches("nn_zoo.json"); }
TEST(SchedDag, MatchesKaplaZoo) { expect_dag_matches("nn_zoo_kapla.json"); }

TEST(SchedDag, AlexNetVertices) {
  const auto net = test::zoo_network("alex_net");
  const auto dag = schedule::build_sched_dag(net);
  ASSERT_EQ(dag.size(), 13u);
  EXPECT_EQ(net.layer_name(dag.vertices[0][1]), "pool1_a");
  EXPECT_EQ(dag.prevs[0], std::vector<int>{schedule::kInputVertex});
}

}  // namespace
}  // namespace kapla
