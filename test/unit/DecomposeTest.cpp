//===- DecomposeTest.cpp - Strided ranges into <= 4-D access patterns -----===//
//
// decompose() splits a range of a mixed-radix index space into pieces that
// every memory walks as one affine pattern. Checked by enumerating every
// index of every piece against the space's own address formula.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/NeuronToNisa/KernelBuilder.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir::neuron::lowering;

namespace {

/// Addresses of index i of `space` for every memory.
llvm::SmallVector<int64_t, 2> addressOf(const StridedSpace &s, int64_t i) {
  llvm::SmallVector<int64_t, 2> a(s.strides.empty() ? 1 : s.strides.front().size(), 0);
  for (int d = static_cast<int>(s.sizes.size()) - 1; d >= 0; --d) {
    int64_t idx = i % s.sizes[d];
    i /= s.sizes[d];
    for (size_t k = 0; k < a.size(); ++k)
      a[k] += idx * s.strides[d][k];
  }
  return a;
}

/// Checks that the pieces cover [start, start+count) in order, each at most
/// maxDims dims, with the right addresses.
void expectExact(const StridedSpace &s, int64_t start, int64_t count, int maxDims) {
  auto pieces = decompose(s, start, count, maxDims);
  int64_t next = start;
  for (const Piece &p : pieces) {
    ASSERT_EQ(p.first, next);
    ASSERT_LE(static_cast<int>(p.sizes.size()), maxDims);
    int64_t n = 1;
    for (int64_t d : p.sizes)
      n *= d;
    ASSERT_EQ(n, p.count);
    llvm::SmallVector<int64_t> idx(p.sizes.size(), 0);
    for (int64_t j = 0; j < p.count; ++j) {
      llvm::SmallVector<int64_t, 2> want = addressOf(s, p.first + j);
      for (size_t k = 0; k < want.size(); ++k) {
        int64_t got = p.offsets[k];
        for (size_t d = 0; d < idx.size(); ++d)
          got += idx[d] * p.strides[d][k];
        ASSERT_EQ(got, want[k]) << "index " << p.first + j << " memory " << k;
      }
      for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < p.sizes[d])
          break;
        idx[d] = 0;
      }
    }
    next += p.count;
  }
  ASSERT_EQ(next, start + count);
}

} // namespace

TEST(Decompose, ContiguousRangeIsOnePiece) {
  StridedSpace s{{4, 8, 16}, {{128}, {16}, {1}}};
  auto pieces = decompose(s, 0, 512, 4);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].sizes, llvm::SmallVector<int64_t>{512});
}

TEST(Decompose, BroadcastDimsMergeIntoStrideZero) {
  // A [16] vector read over [4, 8, 16]: rows repeat it.
  StridedSpace s{{4, 8, 16}, {{0}, {0}, {1}}};
  auto pieces = decompose(s, 0, 512, 4);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].sizes, (llvm::SmallVector<int64_t>{32, 16}));
  EXPECT_EQ(pieces[0].strides[0][0], 0);
}

TEST(Decompose, PartialBlocksSplitAtTheirEdges) {
  StridedSpace s{{10, 7}, {{100}, {1}}};
  expectExact(s, 3, 50, 4);
  expectExact(s, 3, 50, 1); // one dim at a time
}

TEST(Decompose, TooManyDimsSplitOuterFirst) {
  // Six non-mergeable dims into patterns of at most 4.
  StridedSpace s{{2, 3, 2, 3, 2, 3}, {{1000}, {7}, {300}, {2}, {50}, {1}}};
  auto pieces = decompose(s, 0, 216, 4);
  EXPECT_EQ(pieces.size(), 6u);
  expectExact(s, 0, 216, 4);
}

TEST(Decompose, TwoMemoriesMergeOnlyWhereBothDo) {
  // A transpose: dst row-major, src permuted.
  StridedSpace s{{8, 24}, {{24, 1}, {1, 8}}};
  auto pieces = decompose(s, 0, 192, 4);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].sizes, (llvm::SmallVector<int64_t>{8, 24}));
  expectExact(s, 5, 100, 2);
}

TEST(Decompose, RandomSpacesAndRanges) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 300; ++t) {
    StridedSpace s;
    int rank = 1 + rng() % 5, memories = 1 + rng() % 2;
    for (int d = 0; d < rank; ++d) {
      s.sizes.push_back(1 + rng() % 5);
      llvm::SmallVector<int64_t, 2> st;
      for (int k = 0; k < memories; ++k)
        st.push_back(rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 40));
      s.strides.push_back(st);
    }
    int64_t n = s.numElements();
    int64_t start = rng() % n, count = 1 + rng() % (n - start);
    expectExact(s, start, count, 1 + rng() % 4);
    if (HasFatalFailure())
      return;
  }
}
