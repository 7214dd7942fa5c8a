//===- NisaPasses.td - Passes over nisa programs -------------*- tablegen -*-===//
//
// The engine-level transforms: memory allocation, synchronization and the
// race check that proves it.
//
//===----------------------------------------------------------------------===//

#ifndef NISA_PASSES_TD
#define NISA_PASSES_TD

include "mlir/Pass/PassBase.td"


def NisaAllocateMemoryPass : Pass<"nisa-allocate-memory", "::mlir::nisa::ProgramOp"> {
  let summary = "Places every SBUF/PSUM tile and internal HBM tensor, reusing dead space";
  let description = [{
    A tile lives from the first to the last instruction (in program order)
    that touches it; a tile whose life has ended frees its bytes for the next
    ones. Placement is first-fit starting after the previous placement, so
    consecutive kernels prefer different addresses and can overlap. PSUM
    tiles of at most one bank (2 KiB per partition) never straddle a bank.
    Internal HBM tensors get offsets in one scratch area the same way.
    When the tiles live at some instruction do not fit, the pass fails and
    names the kernel, the instruction, the bytes needed and the capacity.
    Sets `offset` on every `nisa.alloc` and internal `nisa.hbm`. With
    `reuse-scratch=false` every internal HBM tensor keeps bytes of its own,
    so that a checked run can read each one after the program ends.
  }];
  let options = [
    Option<"reuseScratch", "reuse-scratch", "bool", /*default=*/"true",
           "Let internal HBM tensors share the bytes of dead ones">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaFoldCopyKernelsPass : Pass<"nisa-fold-copy-kernels", "::mlir::nisa::ProgramOp"> {
  let summary = "Absorbs kernels that only copy HBM tensors (slices, permutes, concats) into the DMAs that read the copy or write its sources";
  let description = [{
    Runs first on the program, before `nisa-forward-stores`. A kernel made
    only of HBM-to-HBM DMAs from one tensor into another (a slice,
    a permute that keeps the contiguous dim) costs a round trip of its bytes
    and two DMA latencies. When it writes each element of its result exactly
    once, nothing writes its source after it, and every other access to the
    result is a later DMA whose source elements, mapped through the copy,
    form an access pattern (a dim may split into runs from several source
    rows, up to the four dims a DMA has), those DMAs read the source
    with that pattern, the kernel is erased (and the result tensor when
    nothing names it), and the reader kernels' locations take the copy's, so
    the profile lists its source op as absorbed. Failing that (a copy into a
    program output), when the copy reads each source element once, the
    source's every other access is a DMA writing it before the copy and
    nothing touches the result before the copy, those writers store into the
    result directly. A concat (copies from several sources) folds part by
    part: each internal source copied element for element and read by
    nothing else is written into its place by its writers, and the kernel
    keeps the other parts; a source that several concats copy lives in its
    place in the last one's result (its writers and readers name that place,
    and the earlier concats become slices of it). Either way the kernel
    stays when the runs the
    rewritten DMAs gain cost a kernel's queues more time than one DMA
    latency plus the copy's longest transfer. Tensors over 2^22 elements, or
    rewritten DMAs over 2^24 elements in all, are left alone.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark on each copy kernel folded, or kept for its runs">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaForwardStoresPass : Pass<"nisa-forward-stores", "::mlir::nisa::ProgramOp"> {
  let summary = "Keeps activations in SBUF between kernels: loads become copies from the storing tile";
  let description = [{
    Runs before allocation. A load of an internal HBM tensor whose every
    element an earlier instruction stored from one SBUF tile, on the
    partition the load writes it to, with nothing writing those tile bytes
    since, becomes a `tensor_copy` from that tile on the least busy of
    ScalarE, VectorE and GpSimdE: no DMA latency and no HBM traffic on the
    chain between the two kernels. A tile read by a later kernel moves to
    the program's body (a carried tile) and lives until its last copy; a
    tile is carried only while the SBUF tiles of every kernel it crosses,
    with it, stay within three quarters of a partition, and only into a
    kernel whose busiest copying engine works less than ten DMA latencies
    (a bigger kernel's loads overlap its compute). Tensors that nothing
    loads any more are no longer stored, unless `keep-stores` (checked runs
    read every internal tensor). Internal tensors over 2^20 elements and
    loads over 2^18 are left alone, as are integer tiles (engines copy
    through f32) and patterns no access pattern can name. A load from a
    carried tile whose readers, up to the next write of its bytes, are all
    engine instructions reading inside it, with the load and its source one
    contiguous run per partition, is no copy at all: those readers read the
    carried tile in place (the partition pieces of one transfer together).
  }];
  let options = [
    Option<"keepStores", "keep-stores", "bool", /*default=*/"false",
           "Keep the stores of tensors whose every load was forwarded">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark on each kernel that reads an earlier kernel's tiles">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaSpreadLoadsPass : Pass<"nisa-spread-loads", "::mlir::nisa::ProgramOp"> {
  let summary = "Spreads the loads of a kernel that stores nothing over every DMA queue";
  let description = [{
    Runs after `nisa-forward-stores`. The lowering keeps some DMA queues for
    a kernel's stores; once every store has become an SBUF copy, those
    queues are idle. A kernel whose DMAs are all loads into tiles (loads it
    starts for a later kernel, `nisa.prefetch_for`, aside and left alone), on fewer
    queues than the target has and with more loads than queues used, gets
    its loads reassigned in program order, each to the queue with the least
    of the kernel's estimated load time so far (its own queue on a tie),
    never onto a queue on which the kernel before it stores (such a load
    would wait for that kernel's results). Kept only when the kernel's
    busiest queue gets shorter.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark on each kernel whose loads spread">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaPrefetchLoadsPass : Pass<"nisa-prefetch-loads", "::mlir::nisa::ProgramOp"> {
  let summary = "Starts a kernel's loads of constants and inputs during the kernel before it";
  let description = [{
    Runs before allocation, after `nisa-forward-stores`. DMA queues run in
    program order, so a kernel's weight load queued behind the previous
    kernel's stores starts only when that kernel has finished. A load from
    an HBM tensor that no instruction writes (a constant or an input) into
    an SBUF tile its kernel has not touched before moves into the previous
    kernel, right before that kernel's first store that follows its last
    load on the same queue (a queue without such a store keeps the load
    where it is), and is marked `nisa.prefetch_for = @kernel` (the debug
    map attributes it to its own kernel). Its tile becomes a carried tile
    `@<kernel>.<tile>`, taken only while the previous kernel's tiles, the
    carried ones crossing it and the prefetched ones stay within three
    quarters of a partition, and while the previous kernel's DMA bytes with
    the moved ones take at most twice the longer of its busiest engine's
    estimated work and two DMA latencies. `nisa-allocate-memory` moves the
    loads back when the program does not fit with them.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark on each kernel whose loads start early">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaInsertSemaphoresPass : Pass<"nisa-insert-semaphores", "::mlir::nisa::ProgramOp"> {
  let summary = "Synchronizes the engine streams: a wait for every cross-engine dependency";
  let description = [{
    Every instruction reads and writes memory regions (after allocation:
    partitions x bytes in SBUF/PSUM, exact byte runs in HBM). An instruction
    depends on every earlier one whose region overlaps its own when one of
    the two writes. Within a stream (one engine, one DMA queue) order is kept
    by the hardware. Across streams the producer gets `signal` and the
    consumer `wait(stream >= n)`, n counting the producer stream's signals,
    unless the consumer's stream already knows that instruction finished
    (vector clocks through earlier waits): every cross-stream dependency is
    synchronized and nothing else.
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaCheckRacesPass : Pass<"nisa-check-races", "::mlir::nisa::ProgramOp"> {
  let summary = "Proves the semaphores order every conflicting access, without deadlock";
  let description = [{
    Re-derives what each stream knows has finished from the `wait`/`signal`
    fields alone, then checks every pair of overlapping accesses from
    different streams with at least one write: the later one (in program
    order) must know the earlier finished. Reports a race (both
    instructions, the memory and why), a wait that can never be satisfied
    (a deadlock), and a wait that is redundant (already implied).
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

#endif // NISA_PASSES_TD
