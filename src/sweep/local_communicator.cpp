// The one-process communicator: tasks run in order on the calling thread.
#include "sweep/communicator.hpp"

namespace kapla::sweep {

namespace {

class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string kind() const override { return "local"; }
  std::string library_version() const override { return ""; }
  void barrier() override {}
  int max(int value) override { return value; }
  std::string broadcast(const std::string& text) override { return text; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  void abort(int /*exit_code*/) override {}

  // One rank asks nobody, so chunks change nothing here.
  void for_each_task(const std::vector<std::size_t>& order, const TaskFn& work, const StopFn& stop,
                     const ProgressFn& progress, const ChunkFn& /*chunk*/) override {
    DispatchState state;
    state.total = order.size();
    for (const std::size_t task : order) {
      if (stop && stop()) break;
      state.running = 1;
      if (progress) progress(state);
      work(task);
      state.running = 0;
      ++state.done;
      if (progress) progress(state);
    }
  }
};

}  // namespace

std::unique_ptr<Communicator> make_local_communicator() {
  return std::make_unique<LocalCommunicator>();
}

}  // namespace kapla::sweep
