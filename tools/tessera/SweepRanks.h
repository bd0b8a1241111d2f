#pragma once
/// \file
/// The processes of one sweep. Started by an MPI launcher (`mpirun -n 4 tessera sweep ...`, `srun --mpi=pmix
/// tessera sweep ...`), each process is a rank: it runs its share of the combinations (shardOf) and rank 0 gathers
/// the rows and prints the table. Started any other way it is the only rank, and nothing here talks to MPI.
/// Collective calls (every rank makes them, in the same order) are marked so.

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace tessera::driver {

/// Whether an MPI launcher started this process: one of the variables Open MPI's mpirun, PMIx (srun --mpi=pmix)
/// or PMI-2 (srun --mpi=pmi2, MPICH's mpiexec) give each rank is set.
bool launchedByMpi();

/// This process's rank as its MPI launcher numbered it (the same variables), before MPI starts; 0 when no launcher
/// started it.
unsigned launcherRank();

/// What a rank other than 0 throws when rank 0 failed in SweepRanks::onRoot: rank 0 reports the error.
struct RootFailed {
  int status = 1; ///< the exit status to give (rank 0's)
};

/// This process's place in the sweep, and the messages between ranks. MPI starts when one is made (in a process an
/// MPI launcher started) and ends when it is destroyed.
class SweepRanks {
public:
  /// Joins the other ranks when launched by MPI. Launched by MPI in a tessera built without it (TESSERA_MPI=OFF)
  /// is an InputError: every process would run the whole sweep.
  SweepRanks();
  ~SweepRanks();
  SweepRanks(const SweepRanks &) = delete;
  SweepRanks &operator=(const SweepRanks &) = delete;

  unsigned rank() const { return rank_; }
  unsigned size() const { return size_; }
  bool root() const { return rank_ == 0; }
  /// Ranks on this host (MPI's shared-memory group): they share its cores.
  unsigned onThisHost() const { return onThisHost_; }

  /// Collective: every rank's text (its rows: encodeRows), rank by rank, on rank 0; empty on the others.
  std::vector<std::string> gather(const std::string &mine) const;
  /// Collective: runs `f` on rank 0 alone and tells every rank whether it threw. Rank 0 rethrows what `f` threw
  /// (its caller reports it); the others throw RootFailed with the status it maps to (`statusOf`).
  void onRoot(const std::function<void()> &f, const std::function<int(const std::exception &)> &statusOf) const;
  /// Collective: rank 0's `value`, on every rank.
  int broadcast(int value) const;

private:
  unsigned rank_ = 0, size_ = 1, onThisHost_ = 1;
  bool mpi_ = false;
};

} // namespace tessera::driver
