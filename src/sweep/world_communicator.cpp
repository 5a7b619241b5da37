// make_world_communicator: the only place that decides between MPI and local.
#include <cstdlib>
#include <string>

#include "core/errors.hpp"
#include "sweep/communicator.hpp"

namespace kapla::sweep {

#ifdef KAPLA_HAVE_MPI
std::unique_ptr<Communicator> make_mpi_communicator();  // mpi_communicator.cpp
#endif

namespace {
bool env_set(const char* name) { return std::getenv(name) != nullptr; }
}  // namespace

std::unique_ptr<Communicator> make_world_communicator() {
  // Launched by an MPI starter? (Open MPI, PMIx, MPICH/Hydra, Slurm's PMI.) Without one, a
  // singleton MPI_Init would only cost start-up time, so a plain run stays local.
  const bool launched = env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMIX_RANK") ||
                        env_set("PMI_RANK") || env_set("PMI_SIZE");
#ifdef KAPLA_HAVE_MPI
  if (launched) return make_mpi_communicator();
#endif
  const char* ntasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (ntasks != nullptr && std::atoi(ntasks) > 1 && !launched) {
    throw InputError(std::string("started as ") + ntasks +
                     " Slurm tasks without MPI between them (each would run the whole sweep); "
                     "launch with mpirun inside the allocation, or srun --mpi=pmix");
  }
#ifndef KAPLA_HAVE_MPI
  if (launched) {
    throw InputError(
        "started by an MPI launcher, but this kapla was built without MPI "
        "(KAPLA_WITH_MPI=OFF); run it without mpirun");
  }
#endif
  return make_local_communicator();
}

}  // namespace kapla::sweep
