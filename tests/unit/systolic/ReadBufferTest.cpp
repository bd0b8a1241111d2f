/// SCALE-Sim's DRAM read rule (ReadBuffer.h): the address-by-address model against the closed forms the fold
/// model uses, on streams of both shapes a GEMM produces, for epochs small enough to end anywhere.

#include "tessera/systolic/ReadBuffer.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

namespace tessera::systolic {
namespace {

TEST(ReadBuffer, EpochIsHalfTheSramInSetsOfOnePercent) {
  EXPECT_EQ(epochFetches(1), 500);          // 1024 words: sets of 10, 50 sets
  EXPECT_EQ(epochFetches(2), 1000);         // 2048: sets of 20
  EXPECT_EQ(epochFetches(6144), 3145700);   // 6291456 words: sets of 62914
}

TEST(ReadBuffer, HitsWithinAnEpochMissesAfterIt) {
  ReadBuffer buffer(10, 3);
  EXPECT_TRUE(buffer.read(0));
  EXPECT_FALSE(buffer.read(0));
  EXPECT_TRUE(buffer.read(1));
  EXPECT_TRUE(buffer.read(2)); // third fetch: the epoch ends
  EXPECT_TRUE(buffer.read(0)); // so 0 is fetched again
  EXPECT_FALSE(buffer.read(0));
  EXPECT_EQ(buffer.dramReads(), 4);
}

TEST(ReadBuffer, EndlessEpochFetchesEachAddressOnce) {
  ReadBuffer buffer(5, 0);
  for (int round = 0; round < 3; ++round)
    for (int a = 0; a < 5; ++a) buffer.read(a);
  EXPECT_EQ(buffer.dramReads(), 5);
}

/// Reads `size` addresses in a shuffled but fixed order, `rounds` times.
int64_t simulateRounds(int64_t size, int64_t rounds, int64_t epoch, std::mt19937 &rng) {
  std::vector<int64_t> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  ReadBuffer buffer(size, epoch);
  for (int64_t r = 0; r < rounds; ++r)
    for (int64_t a : order) buffer.read(a);
  return buffer.dramReads();
}

TEST(ReadBuffer, RoundsClosedFormMatchesTheRule) {
  std::mt19937 rng(7);
  for (int64_t size = 1; size <= 40; ++size)
    for (int64_t rounds = 1; rounds <= 4; ++rounds)
      for (int64_t epoch : {0, 1, 2, 3, 5, 8, 13, 21, 39, 40, 41, 100}) {
        SCOPED_TRACE(testing::Message() << "size " << size << " rounds " << rounds << " epoch " << epoch);
        EXPECT_EQ(dramReadsOfRounds(size, rounds, epoch), simulateRounds(size, rounds, epoch, rng));
      }
}

TEST(ReadBuffer, RepeatedBlocksClosedFormMatchesTheRule) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<int64_t> sizes(size_t(1 + rng() % 6));
    for (int64_t &n : sizes) n = 1 + int64_t(rng() % 30);
    int64_t repeats = 1 + int64_t(rng() % 4);
    int64_t epoch = int64_t(rng() % 50);
    int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
    // Block b owns addresses [base_b, base_b + n_b), read in a fixed shuffled order on every pass.
    ReadBuffer buffer(total, epoch);
    int64_t base = 0;
    for (int64_t n : sizes) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), base);
      std::shuffle(order.begin(), order.end(), rng);
      for (int64_t r = 0; r < repeats; ++r)
        for (int64_t a : order) buffer.read(a);
      base += n;
    }
    SCOPED_TRACE(testing::Message() << "trial " << trial << " epoch " << epoch << " repeats " << repeats);
    EXPECT_EQ(dramReadsOfRepeatedBlocks(sizes, repeats, epoch), buffer.dramReads());
  }
}

} // namespace
} // namespace tessera::systolic
