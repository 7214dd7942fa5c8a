// Kernels that only copy one HBM tensor into another are absorbed into the
// DMAs that write their source or, when those cannot take them, into the
// DMAs that read the copy; each part of a concat that only it reads, into
// the DMAs that write that part.
// RUN: neuron-opt %s --nisa-fold-copy-kernels=remarks -split-input-file -verify-diagnostics | FileCheck %s
// The folded programs allocate, synchronize and pass the race check.
// The reader kernel's location takes the copies' (the profile's "Absorbed").
// RUN: neuron-opt %s --nisa-fold-copy-kernels -split-input-file -mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: neuron-opt %s --nisa-fold-copy-kernels --nisa-allocate-memory --nisa-insert-semaphores --nisa-check-races -split-input-file | FileCheck %s --check-prefix=RACES

// A head split: a slice of the fused QKV projection ([4, 2, 192] rows of
// [q | k | v], 64 each) and a permute [1, 0, 2] of its two heads, as two
// copy kernels. Both fold: the attention-like reader loads each head's
// [4, 32] block of q straight from @qkv, one run of 32 per row. The slice's and
// the permute's locations join the reader's.
// CHECK-LABEL: nisa.program @head_split
// CHECK-NOT:  nisa.hbm @q internal
// CHECK-NOT:  nisa.hbm @qh internal
// CHECK-NOT:  nisa.kernel @slice
// CHECK-NOT:  nisa.kernel @permute
// CHECK:      nisa.kernel @use
// CHECK-NEXT: nisa.alloc @t sbuf 4x96xf32
// CHECK-NEXT: nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @qkv[0, [384,4], [1,32]]
// CHECK-NEXT: nisa.dma_copy q1 @t[0:4, 32, [1,32]] = @qkv[32, [384,4], [1,32]]
// CHECK-NEXT: nisa.dma_copy q2 @t[0:4, 64, [1,32]] = @qkv[192, [384,4], [1,32]]
// LOC-LABEL: nisa.program @head_split
// LOC:       } loc(#[[USE:loc[0-9]+]])
// LOC:       #[[USE]] = loc(fused[#{{loc[0-9]+}}, #{{loc[0-9]+}}, #{{loc[0-9]+}}])
// RACES-LABEL: nisa.program @head_split
// RACES:      nisa.kernel @use
// RACES:      nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @qkv[0, [384,4], [1,32]] signal
nisa.program @head_split target "trn1" {
  nisa.hbm @qkv input 0 : tensor<4x2x192xf32>
  nisa.hbm @y output 0 : tensor<4x96xf32>
  nisa.hbm @q internal : tensor<4x2x64xf32>
  nisa.hbm @qh internal : tensor<4x4x32xf32>
  // expected-remark @below {{copy kernel @slice (slice) folded into the loads of 1 kernel(s): they read @qkv directly}}
  nisa.kernel @slice "slice" from "neuron.slice" {
    nisa.dma_copy q0 @q[0, [64,8], [1,64]] = @qkv[0, [192,8], [1,64]]
  }
  // The permute [4, 2, 2, 32] -> [2, 2, 4, 32] (heads outermost) of q's
  // [4, 2, 64] = [s, b, (h, d)], written per head.
  // expected-remark @below {{copy kernel @permute (transpose) folded into the loads of 1 kernel(s): they read @qkv directly}}
  nisa.kernel @permute "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @qh[0, [32,4], [1,32]] = @q[0, [128,4], [1,32]]
    nisa.dma_copy q1 @qh[128, [32,4], [1,32]] = @q[32, [128,4], [1,32]]
    nisa.dma_copy q2 @qh[256, [32,4], [1,32]] = @q[64, [128,4], [1,32]]
    nisa.dma_copy q3 @qh[384, [32,4], [1,32]] = @q[96, [128,4], [1,32]]
  }
  nisa.kernel @use "attention" from "neuron.attention" {
    nisa.alloc @t sbuf 4x96xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @qh[0, [32,4], [1,32]]
    nisa.dma_copy q1 @t[0:4, 32, [1,32]] = @qh[128, [32,4], [1,32]]
    nisa.dma_copy q2 @t[0:4, 64, [1,32]] = @qh[256, [32,4], [1,32]]
    nisa.dma_copy q3 @y[0, [96,4], [1,96]] = @t[0:4, 0, [1,96]]
  } loc("use")
}

// -----

// Between two kernels the producer's stores take the permute too, not the
// consumer's loads: the stores run while the producer computes, the loads
// are what the consumer waits for. The consumer then loads whole rows.
// CHECK-LABEL: nisa.program @writers_first
// CHECK-NOT:  nisa.hbm @o internal
// CHECK-NOT:  nisa.kernel @permute
// CHECK:      nisa.dma_copy q1 @p[0, [32,4], [128,2], [1,32]] = @t[0:4, 0, [1,64]]
// CHECK:      nisa.kernel @use
// CHECK-NEXT: nisa.alloc @u sbuf 8x32xf32
// CHECK-NEXT: nisa.dma_copy q0 @u[0:8, 0, [1,32]] = @p[0, [32,8], [1,32]]
nisa.program @writers_first target "trn1" {
  nisa.hbm @x input 0 : tensor<4x64xf32>
  nisa.hbm @y output 0 : tensor<8x32xf32>
  nisa.hbm @o internal : tensor<4x2x32xf32>
  nisa.hbm @p internal : tensor<2x4x32xf32>
  nisa.kernel @exp "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x64xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,64]] = @x[0, [64,4], [1,64]]
    nisa.activation exp @t[0:4, 0, [1,64]] = @t[0:4, 0, [1,64]]
    nisa.dma_copy q1 @o[0, [64,4], [1,64]] = @t[0:4, 0, [1,64]]
  }
  // expected-remark @below {{copy kernel @permute (transpose) folded into the stores of 1 kernel(s): they write @p directly}}
  nisa.kernel @permute "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @p[0, [128,2], [32,4], [1,32]] = @o[0, [32,2], [64,4], [1,32]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @u sbuf 8x32xf32
    nisa.dma_copy q0 @u[0:8, 0, [1,32]] = @p[0, [32,8], [1,32]]
    nisa.activation exp @u[0:8, 0, [1,32]] = @u[0:8, 0, [1,32]]
    nisa.dma_copy q1 @y[0, [32,8], [1,32]] = @u[0:8, 0, [1,32]]
  }
}

// -----

// A row of the permuted result crosses source rows: the reader's one dim
// of 64 becomes runs of 32 from two source rows, [128,2] and [1,32].
// CHECK-LABEL: nisa.program @split_dim
// CHECK-NOT:  nisa.kernel @permute
// CHECK:      nisa.dma_copy q0 @t[0:2, 0, [1,64]] = @x[0, [32,2], [128,2], [1,32]]
nisa.program @split_dim target "trn1" {
  nisa.hbm @x input 0 : tensor<2x4x32xf32>
  nisa.hbm @y output 0 : tensor<2x64xf32>
  nisa.hbm @p internal : tensor<4x2x32xf32>
  // expected-remark @below {{folded into the loads of 1 kernel(s)}}
  nisa.kernel @permute "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @p[0, [64,4], [32,2], [1,32]] = @x[0, [32,4], [128,2], [1,32]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 2x64xf32
    nisa.dma_copy q0 @t[0:2, 0, [1,64]] = @p[0, [64,2], [1,64]]
    nisa.dma_copy q1 @y[0, [64,2], [1,64]] = @t[0:2, 0, [1,64]]
  }
}

// -----

// A permute into a program output lands in its producer's store: the store
// writes @y where the copy would have put each element, each row of the
// tile as two runs of 32, [128,2] and [1,32].
// CHECK-LABEL: nisa.program @into_writers
// CHECK-NOT:  nisa.hbm @o internal
// CHECK-NOT:  nisa.kernel @permute
// CHECK:      nisa.dma_copy q1 @y[0, [32,4], [128,2], [1,32]] = @t[0:4, 0, [1,64]]
// RACES-LABEL: nisa.program @into_writers
// RACES:      nisa.dma_copy q1 @y[0, [32,4], [128,2], [1,32]] = @t[0:4, 0, [1,64]] wait(scalar >= 1)
nisa.program @into_writers target "trn1" {
  nisa.hbm @x input 0 : tensor<4x64xf32>
  nisa.hbm @y output 0 : tensor<2x4x32xf32>
  nisa.hbm @o internal : tensor<4x2x32xf32>
  nisa.kernel @exp "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x64xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,64]] = @x[0, [64,4], [1,64]]
    nisa.activation exp @t[0:4, 0, [1,64]] = @t[0:4, 0, [1,64]]
    nisa.dma_copy q1 @o[0, [64,4], [1,64]] = @t[0:4, 0, [1,64]]
  }
  // expected-remark @below {{copy kernel @permute (transpose) folded into the stores of 1 kernel(s): they write @y directly}}
  nisa.kernel @permute "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @y[0, [128,2], [32,4], [1,32]] = @o[0, [32,2], [64,4], [1,32]]
  }
}

// -----

// What stays: a copy whose result a gather also reads (its rows are
// found at run time); a copy that writes only part of its result; a copy
// whose source is written after it; a copy of an input into a program
// output (no kernel writes its source).
// CHECK-LABEL: nisa.program @stays
// CHECK: nisa.kernel @read_by_gather
// CHECK: nisa.kernel @partial
// CHECK: nisa.kernel @source_rewritten
// CHECK: nisa.kernel @to_output
nisa.program @stays target "trn1" {
  nisa.hbm @x input 0 : tensor<4x8xf32>
  nisa.hbm @y output 0 : tensor<4x8xf32>
  nisa.hbm @z output 1 : tensor<4x8xf32>
  nisa.hbm @w output 2 : tensor<4x8xf32>
  nisa.hbm @a internal : tensor<4x8xf32>
  nisa.hbm @b internal : tensor<4x8xf32>
  nisa.hbm @c internal : tensor<4x8xf32>
  nisa.hbm @s internal : tensor<4x8xf32>
  nisa.kernel @read_by_gather "slice" from "neuron.slice" {
    nisa.dma_copy q0 @a[0, [8,4], [1,8]] = @x[0, [8,4], [1,8]]
  }
  nisa.kernel @gather "gather" from "neuron.gather" {
    nisa.alloc @i sbuf 4x1xi32
    nisa.alloc @t sbuf 4x8xf32
    nisa.memset gpsimd @i[0:4, 0, [1,1]] = 0.0
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @a[0, [0,4], [1,8]] indirect @i[0:4, 0, [1,1]] stride 8 bound 4
    nisa.dma_copy q1 @y[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @partial "slice" from "neuron.slice" {
    nisa.dma_copy q0 @b[0, [8,2], [1,8]] = @x[0, [8,2], [1,8]]
  }
  nisa.kernel @source "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @x[0, [8,4], [1,8]]
    nisa.dma_copy q0 @s[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @source_rewritten "slice" from "neuron.slice" {
    nisa.dma_copy q0 @c[0, [8,4], [1,8]] = @s[0, [8,4], [1,8]]
  }
  nisa.kernel @overwrite "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @b[0, [8,4], [1,8]]
    nisa.dma_copy q1 @s[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x16xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @c[0, [8,4], [1,8]]
    nisa.dma_copy q1 @t[0:4, 8, [1,8]] = @s[0, [8,4], [1,8]]
    nisa.dma_copy q2 @z[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @to_output "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @w[0, [8,4], [1,8]] = @x[0, [8,4], [1,8]]
  }
}

// -----

// A concat: each source that only the concat reads is written into its
// part of the result by its producer (@a, then @d, whose producer writes
// after @pa has already written @c's first part), and the concat keeps the
// part of @b, which @peek reads too.
// CHECK-LABEL: nisa.program @concat
// CHECK-NOT:  nisa.hbm @a internal
// CHECK-NOT:  nisa.hbm @d internal
// CHECK:      nisa.kernel @pa
// CHECK:      nisa.dma_copy q1 @c[0, [96,4], [1,32]] = @t[0:4, 0, [1,32]]
// CHECK:      nisa.kernel @pd
// CHECK:      nisa.dma_copy q1 @c[64, [96,4], [1,32]] = @t[0:4, 0, [1,32]]
// CHECK:      nisa.kernel @concat
// CHECK-NEXT: nisa.dma_copy q1 @c[32, [96,4], [1,32]] = @b[0, [32,4], [1,32]]
// CHECK-NEXT: }
// RACES-LABEL: nisa.program @concat
// RACES:      nisa.kernel @use
nisa.program @concat target "trn1" {
  nisa.hbm @x input 0 : tensor<4x32xf32>
  nisa.hbm @y output 0 : tensor<4x96xf32>
  nisa.hbm @z output 1 : tensor<4x32xf32>
  nisa.hbm @a internal : tensor<4x32xf32>
  nisa.hbm @b internal : tensor<4x32xf32>
  nisa.hbm @d internal : tensor<4x32xf32>
  nisa.hbm @c internal : tensor<4x96xf32>
  nisa.kernel @pa "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @x[0, [32,4], [1,32]]
    nisa.dma_copy q1 @a[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  nisa.kernel @pb "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @x[0, [32,4], [1,32]]
    nisa.dma_copy q1 @b[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  nisa.kernel @pd "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @x[0, [32,4], [1,32]]
    nisa.dma_copy q1 @d[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  // expected-remark @below {{copy kernel @concat (concat): its copy of @a folded into the stores of 1 kernel(s): they write @c directly}}
  // expected-remark @below {{copy kernel @concat (concat): its copy of @d folded into the stores of 1 kernel(s): they write @c directly}}
  nisa.kernel @concat "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c[0, [96,4], [1,32]] = @a[0, [32,4], [1,32]]
    nisa.dma_copy q1 @c[32, [96,4], [1,32]] = @b[0, [32,4], [1,32]]
    nisa.dma_copy q2 @c[64, [96,4], [1,32]] = @d[0, [32,4], [1,32]]
  }
  nisa.kernel @peek "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @b[0, [32,4], [1,32]]
    nisa.dma_copy q1 @z[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x96xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,96]] = @c[0, [96,4], [1,96]]
    nisa.dma_copy q1 @y[0, [96,4], [1,96]] = @t[0:4, 0, [1,96]]
  }
}

// -----

// A concat whose every source folds is gone; its result is written by the
// producers alone and read where it was.
// CHECK-LABEL: nisa.program @concat_gone
// CHECK-NOT:  nisa.kernel @concat
// CHECK:      nisa.kernel @use
// CHECK-NEXT: nisa.alloc @t sbuf 4x64xf32
// CHECK-NEXT: nisa.dma_copy q0 @t[0:4, 0, [1,64]] = @c[0, [64,4], [1,64]]
// RACES-LABEL: nisa.program @concat_gone
// RACES:      nisa.kernel @use
// RACES-NEXT: nisa.alloc
// RACES-NEXT: nisa.dma_copy q0 {{.*}} wait(
nisa.program @concat_gone target "trn1" {
  nisa.hbm @x input 0 : tensor<4x32xf32>
  nisa.hbm @y output 0 : tensor<4x64xf32>
  nisa.hbm @a internal : tensor<4x32xf32>
  nisa.hbm @d internal : tensor<4x32xf32>
  nisa.hbm @c internal : tensor<4x64xf32>
  nisa.kernel @pa "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @x[0, [32,4], [1,32]]
    nisa.dma_copy q1 @a[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  nisa.kernel @pd "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x32xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,32]] = @x[0, [32,4], [1,32]]
    nisa.dma_copy q1 @d[0, [32,4], [1,32]] = @t[0:4, 0, [1,32]]
  }
  // expected-remark @below {{copy kernel @concat (concat): its copy of @a folded into the stores of 1 kernel(s): they write @c directly}}
  // expected-remark @below {{copy kernel @concat (concat): its copy of @d folded into the stores of 1 kernel(s): they write @c directly}}
  nisa.kernel @concat "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c[0, [64,4], [1,32]] = @a[0, [32,4], [1,32]]
    nisa.dma_copy q1 @c[32, [64,4], [1,32]] = @d[0, [32,4], [1,32]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x64xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,64]] = @c[0, [64,4], [1,64]]
    nisa.dma_copy q1 @y[0, [64,4], [1,64]] = @t[0:4, 0, [1,64]]
  }
}

// -----

// A dense block: every layer's concat copies the block input and all
// earlier layers' features again. Each of them lives in its place in the
// last concat's result instead: @p0 and the layers store there, the
// concats before the last become slices of it and fold into their
// readers, and the last keeps nothing.
// CHECK-LABEL: nisa.program @dense
// CHECK-NOT:  nisa.kernel @cat
// CHECK:      nisa.kernel @p0
// CHECK:      nisa.dma_copy q1 @c3[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
// CHECK:      nisa.kernel @l1
// CHECK-NEXT: nisa.alloc
// CHECK-NEXT: nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @c3[0, [8,4], [1,8]]
// CHECK-NEXT: nisa.dma_copy q1 @c3[32, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
// CHECK:      nisa.kernel @l2
// CHECK-NEXT: nisa.alloc
// CHECK-NEXT: nisa.dma_copy q0 @t[0:8, 0, [1,8]] = @c3[0, [8,8], [1,8]]
// CHECK-NEXT: nisa.dma_copy q1 @c3[64, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
// CHECK-NOT:  nisa.kernel @cat
// RACES-LABEL: nisa.program @dense
// RACES:      nisa.kernel @l2
// RACES-NEXT: nisa.alloc
// RACES-NEXT: nisa.dma_copy q0 @t[0:8, 0, [1,8]] = @c3[0, [8,8], [1,8]] wait(q1 >= 2)
nisa.program @dense target "trn1" {
  nisa.hbm @x input 0 : tensor<4x8xf32>
  nisa.hbm @y output 0 : tensor<12x8xf32>
  nisa.hbm @x0 internal : tensor<4x8xf32>
  nisa.hbm @c1 internal : tensor<4x8xf32>
  nisa.hbm @n1 internal : tensor<4x8xf32>
  nisa.hbm @c2 internal : tensor<8x8xf32>
  nisa.hbm @n2 internal : tensor<4x8xf32>
  nisa.hbm @c3 internal : tensor<12x8xf32>
  nisa.kernel @p0 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @x[0, [8,4], [1,8]]
    nisa.dma_copy q1 @x0[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  // expected-remark @below {{copy kernel @cat1 (concat) folded into the loads of 1 kernel(s): they read @x0 directly}}
  nisa.kernel @cat1 "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c1[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
  }
  nisa.kernel @l1 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @c1[0, [8,4], [1,8]]
    nisa.dma_copy q1 @n1[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  // expected-remark @below {{copy kernel @cat2 (concat): @x0 lives in its place in @c3, the result of @cat3 (3 DMA(s) name it)}}
  // expected-remark @below {{copy kernel @cat2 (concat): @n1 lives in its place in @c3, the result of @cat3 (2 DMA(s) name it)}}
  // expected-remark @below {{copy kernel @cat2 (concat) folded into the loads of 1 kernel(s): they read @c3 directly}}
  nisa.kernel @cat2 "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c2[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
    nisa.dma_copy q1 @c2[32, [8,4], [1,8]] = @n1[0, [8,4], [1,8]]
  }
  nisa.kernel @l2 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 8x8xf32
    nisa.dma_copy q0 @t[0:8, 0, [1,8]] = @c2[0, [8,8], [1,8]]
    nisa.dma_copy q1 @n2[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  // expected-remark @below {{copy kernel @cat3 (concat): its copy of @n2 folded into the stores of 1 kernel(s): they write @c3 directly}}
  nisa.kernel @cat3 "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c3[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
    nisa.dma_copy q1 @c3[32, [8,4], [1,8]] = @n1[0, [8,4], [1,8]]
    nisa.dma_copy q2 @c3[64, [8,4], [1,8]] = @n2[0, [8,4], [1,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 12x8xf32
    nisa.dma_copy q0 @t[0:12, 0, [1,8]] = @c3[0, [8,12], [1,8]]
    nisa.dma_copy q1 @y[0, [8,12], [1,8]] = @t[0:12, 0, [1,8]]
  }
}

// -----

// The same block with the input written again after the first concat read
// it: it cannot live in the last concat's result (that would move the
// second write before the second read), so both concats keep their copies
// of it.
// CHECK-LABEL: nisa.program @dense_rewritten
// CHECK:      nisa.kernel @cat2
// CHECK-NEXT: nisa.dma_copy q0 @c2[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
// CHECK:      nisa.kernel @cat3
// CHECK-NEXT: nisa.dma_copy q0 @c3[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
nisa.program @dense_rewritten target "trn1" {
  nisa.hbm @x input 0 : tensor<4x8xf32>
  nisa.hbm @y output 0 : tensor<12x8xf32>
  nisa.hbm @x0 internal : tensor<4x8xf32>
  nisa.hbm @n1 internal : tensor<4x8xf32>
  nisa.hbm @c2 internal : tensor<8x8xf32>
  nisa.hbm @c3 internal : tensor<12x8xf32>
  nisa.kernel @p0 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @x[0, [8,4], [1,8]]
    nisa.dma_copy q1 @x0[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @l1 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @x[0, [8,4], [1,8]]
    nisa.dma_copy q1 @n1[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  // expected-remark @below {{copy kernel @cat2 (concat): @n1 lives in its place in @c3, the result of @cat3 (2 DMA(s) name it)}}
  nisa.kernel @cat2 "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c2[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
    nisa.dma_copy q1 @c2[32, [8,4], [1,8]] = @n1[0, [8,4], [1,8]]
  }
  nisa.kernel @l2 "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 8x8xf32
    nisa.dma_copy q0 @t[0:8, 0, [1,8]] = @c2[0, [8,8], [1,8]]
    nisa.dma_copy q1 @x0[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @cat3 "concat" from "neuron.concat" {
    nisa.dma_copy q0 @c3[0, [8,4], [1,8]] = @x0[0, [8,4], [1,8]]
    nisa.dma_copy q1 @c3[32, [8,4], [1,8]] = @n1[0, [8,4], [1,8]]
    nisa.dma_copy q2 @c3[64, [8,4], [1,8]] = @x[0, [8,4], [1,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 12x8xf32
    nisa.dma_copy q0 @t[0:12, 0, [1,8]] = @c3[0, [8,12], [1,8]]
    nisa.dma_copy q1 @y[0, [8,12], [1,8]] = @t[0:12, 0, [1,8]]
  }
}

// -----

// A zero-interleaving concat (ConvTranspose's stride: [x, 0] along the
// last axis, reshaped): the part of @p keeps its copy, since its producer
// would store runs interleaved with the concat's zeros, and two writes
// whose extents interleave reach the race checker as one overwriting the
// other unread.
// CHECK-LABEL: nisa.program @interleave
// CHECK:      nisa.kernel @zeros
// CHECK-NEXT: nisa.dma_copy q0 @r[0, [16,4], [1,8]] = @p[0, [8,4], [1,8]]
// CHECK-NEXT: nisa.dma_copy q1 @r[8, [16,4], [1,8]] = @z[0, [8,4], [1,8]]
// RACES-LABEL: nisa.program @interleave
nisa.program @interleave target "trn1" {
  nisa.hbm @x input 0 : tensor<4x8xf32>
  nisa.hbm @y output 0 : tensor<8x8xf32>
  nisa.hbm @z const : tensor<4x8xf32> = dense<0.0> : tensor<4x8xf32>
  nisa.hbm @p internal : tensor<4x8xf32>
  nisa.hbm @r internal : tensor<8x8xf32>
  nisa.kernel @prod "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 4x8xf32
    nisa.dma_copy q0 @t[0:4, 0, [1,8]] = @x[0, [8,4], [1,8]]
    nisa.dma_copy q1 @p[0, [8,4], [1,8]] = @t[0:4, 0, [1,8]]
  }
  nisa.kernel @zeros "concat" from "neuron.concat" {
    nisa.dma_copy q0 @r[0, [16,4], [1,8]] = @p[0, [8,4], [1,8]]
    nisa.dma_copy q1 @r[8, [16,4], [1,8]] = @z[0, [8,4], [1,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 8x8xf32
    nisa.dma_copy q0 @t[0:8, 0, [1,8]] = @r[0, [8,8], [1,8]]
    nisa.dma_copy q1 @y[0, [8,8], [1,8]] = @t[0:8, 0, [1,8]]
  }
}

// -----

// A transposing copy stays when its reader would read it an element at a
// time where it read whole rows on one queue, while the copy spread its
// element runs over four: each run costs dmaRunOverheadBytes on its queue
// (15 ns on trn1), and 896 more of them on the reader's one queue cost more
// than the copy kernel's latency and longest transfer.
// CHECK-LABEL: nisa.program @short_runs
// CHECK: nisa.kernel @transpose
// CHECK: nisa.dma_copy q0 @t[0:128, 0, [1,8]] = @p[0, [8,128], [1,8]]
nisa.program @short_runs target "trn1" {
  nisa.hbm @x input 0 : tensor<8x128xf32>
  nisa.hbm @y output 0 : tensor<128x8xf32>
  nisa.hbm @p internal : tensor<128x8xf32>
  // expected-remark @below {{copy kernel @transpose stays: the loads of @use would read it in runs of 4 bytes instead of 4096, 13.49 us more per queue than the copy kernel's 5.32 us}}
  nisa.kernel @transpose "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @p[0, [8,32], [1,8]] = @x[0, [1,32], [128,8]]
    nisa.dma_copy q1 @p[256, [8,32], [1,8]] = @x[32, [1,32], [128,8]]
    nisa.dma_copy q2 @p[512, [8,32], [1,8]] = @x[64, [1,32], [128,8]]
    nisa.dma_copy q3 @p[768, [8,32], [1,8]] = @x[96, [1,32], [128,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 128x8xf32
    nisa.dma_copy q0 @t[0:128, 0, [1,8]] = @p[0, [8,128], [1,8]]
    nisa.dma_copy q1 @y[0, [8,128], [1,8]] = @t[0:128, 0, [1,8]]
  }
}

// -----

// A transposing copy whose own DMA moves element runs on one queue folds
// into its reader even though the reader read whole rows: the reader now
// moves the copy's runs, and the copy's latency leaves the chain (the
// channel shuffle of ShuffleNet at 2x2 pixels: runs of 16 bytes).
// CHECK-LABEL: nisa.program @short_runs_both
// CHECK-NOT: nisa.kernel @transpose
// CHECK: nisa.dma_copy q0 @t[0:16, 0, [1,8]] = @x[0, [1,16], [16,8]]
nisa.program @short_runs_both target "trn1" {
  nisa.hbm @x input 0 : tensor<8x16xf32>
  nisa.hbm @y output 0 : tensor<16x8xf32>
  nisa.hbm @p internal : tensor<16x8xf32>
  // expected-remark @below {{copy kernel @transpose (transpose) folded into the loads of 1 kernel(s): they read @x directly}}
  nisa.kernel @transpose "transpose" from "neuron.transpose" {
    nisa.dma_copy q0 @p[0, [8,16], [1,8]] = @x[0, [1,16], [16,8]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 16x8xf32
    nisa.dma_copy q0 @t[0:16, 0, [1,8]] = @p[0, [8,16], [1,8]]
    nisa.dma_copy q1 @y[0, [8,16], [1,8]] = @t[0:16, 0, [1,8]]
  }
}

// -----

// A copy that swaps two rows stays: its reader would walk the source
// backwards, and patterns only walk forward.
// CHECK-LABEL: nisa.program @backwards
// CHECK: nisa.kernel @swap
// CHECK: nisa.dma_copy q0 @t[0:2, 0, [1,64]] = @p[0, [64,2], [1,64]]
nisa.program @backwards target "trn1" {
  nisa.hbm @x input 0 : tensor<2x64xf32>
  nisa.hbm @y output 0 : tensor<2x64xf32>
  nisa.hbm @p internal : tensor<2x64xf32>
  nisa.kernel @swap "slice" from "neuron.slice" {
    nisa.dma_copy q0 @p[0, [64,1], [1,64]] = @x[64, [64,1], [1,64]]
    nisa.dma_copy q1 @p[64, [64,1], [1,64]] = @x[0, [64,1], [1,64]]
  }
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @t sbuf 2x64xf32
    nisa.dma_copy q0 @t[0:2, 0, [1,64]] = @p[0, [64,2], [1,64]]
    nisa.dma_copy q1 @y[0, [64,2], [1,64]] = @t[0:2, 0, [1,64]]
  }
}
