#include "tessera/SweepRanks.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

#ifdef TESSERA_MPI
#include <mpi.h>
#endif

namespace tessera::driver {

bool launchedByMpi() {
  for (const char *variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  return false;
}

unsigned launcherRank() {
  for (const char *variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *value = std::getenv(variable)) return static_cast<unsigned>(std::strtoul(value, nullptr, 10));
  return 0;
}

#ifdef TESSERA_MPI

namespace {

/// MPI's error for `code` as text.
std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

void check(int code, const char *call) {
  if (code != MPI_SUCCESS) throw Error(fmt::format("MPI: {} failed: {}", call, mpiError(code)));
}

} // namespace

SweepRanks::SweepRanks() {
  if (!launchedByMpi()) return;
  // Only this thread calls MPI; the sweep's worker threads do not.
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  mpi_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1, local = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  MPI_Comm host;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  check(MPI_Comm_size(host, &local), "MPI_Comm_size");
  MPI_Comm_free(&host);
  rank_ = static_cast<unsigned>(rank);
  size_ = static_cast<unsigned>(size);
  onThisHost_ = static_cast<unsigned>(std::max(local, 1));
}

SweepRanks::~SweepRanks() {
  if (mpi_) MPI_Finalize();
}

std::vector<std::string> SweepRanks::gather(const std::string &text) const {
  if (!mpi_) return {text};
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(root() ? size_ : 0), offsets(root() ? size_ : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::string all;
  if (root()) {
    size_t total = 0;
    for (unsigned r = 0; r < size_; ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<size_t>(lengths[r]);
    }
    all.resize(total);
  }
  check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> texts;
  if (!root()) return texts;
  for (unsigned r = 0; r < size_; ++r) texts.push_back(all.substr(offsets[r], lengths[r]));
  return texts;
}

int SweepRanks::broadcast(int value) const {
  if (mpi_) check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

#else // built without MPI: the only rank

SweepRanks::SweepRanks() {
  if (!launchedByMpi()) return;
  const char *size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  if (size && std::string(size) == "1") return; // one process: a sweep like any other
  throw InputError("tessera sweep: started by an MPI launcher, but this tessera was built without MPI "
                   "(TESSERA_MPI=OFF): every process would run the whole sweep",
                   {}, "install libopenmpi-dev and rebuild (the TESSERA_MPI option is ON when MPI is found), or run "
                       "tessera sweep without mpirun/srun");
}

SweepRanks::~SweepRanks() = default;

std::vector<std::string> SweepRanks::gather(const std::string &text) const { return {text}; }

int SweepRanks::broadcast(int value) const { return value; }

#endif

void SweepRanks::onRoot(const std::function<void()> &f,
                        const std::function<int(const std::exception &)> &statusOf) const {
  std::exception_ptr failure;
  int status = 0;
  if (root()) try {
      f();
    } catch (const std::exception &e) {
      failure = std::current_exception();
      status = statusOf(e);
    }
  status = broadcast(failure ? std::max(status, 1) : 0);
  if (failure) std::rethrow_exception(failure);
  if (status != 0) throw RootFailed{status};
}

} // namespace tessera::driver
