//===- NisaOps.td - The engine-level nisa dialect ----------*- tablegen -*-===//
//
// What the compiler emits for the NeuronCore: explicit memories (HBM
// tensors, SBUF and PSUM tiles) and one instruction per engine operation,
// modelled on the NKI ISA. A `nisa.program` holds the HBM declarations and
// the kernels; a `nisa.kernel` holds its tile allocations and instructions in
// program order. Each instruction runs on one engine (or one DMA queue); the
// per-engine instruction streams of the executable are the subsequences of
// this order, synchronized by the semaphore fields every instruction carries.
//
// Memory is named by symbols (`@x`, `@t3`), so instructions read like the
// assembly they become:
//
//   nisa.dma_copy q2 @t0[0:128, 0, [1,4096]] = @x[0, [4096,128], [1,4096]] signal
//   nisa.activation square @t1[0:128, 0, [1,4096]] = @t0[0:128, 0, [1,4096]]
//       accumulate @t2[0:128, 0, [1,1]] wait(q2 >= 1)
//
//===----------------------------------------------------------------------===//

#ifndef NISA_OPS_TD
#define NISA_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Nisa_Dialect : Dialect {
  let name = "nisa";
  let summary = "Engine-level instructions of the NeuronCore";
  let description = [{
    Per-engine instructions over explicit memories: HBM tensors, SBUF tiles
    (128 partitions × 192/224 KiB) and PSUM tiles (128 × 16 KiB, 8 banks).
    `--neuron-lower` produces it from the neuron dialect; `--nisa-allocate-memory`
    gives every tile and internal HBM tensor its address;
    `--nisa-insert-semaphores` synchronizes the engines; the NEFF writer
    encodes the result. See docs/nisa.md.
  }];
  let cppNamespace = "::mlir::nisa";
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The engine, activation-function, ALU and comparison enums are generated from
// the instruction set's one description (include/neuronc/ISA/Isa.def) by
// dialects/CMakeLists.txt, so the dialect and the executable cannot disagree.
include "NisaIsaEnums.td"

def Nisa_MemorySpace : I32EnumAttr<"MemorySpace", "memory space", [
    I32EnumAttrCase<"hbm", 0>, I32EnumAttrCase<"sbuf", 1>, I32EnumAttrCase<"psum", 2>]> {
  let cppNamespace = "::mlir::nisa";
}

/// What an HBM tensor is to the program: bound by the caller (input/output),
/// carried in the executable (const) or scratch between kernels (internal).
def Nisa_HbmKind : I32EnumAttr<"HbmKind", "HBM tensor kind", [
    I32EnumAttrCase<"input", 0>, I32EnumAttrCase<"output", 1>,
    I32EnumAttrCase<"constant", 2, "const">, I32EnumAttrCase<"internal", 3>]> {
  let cppNamespace = "::mlir::nisa";
}

//===----------------------------------------------------------------------===//
// Access patterns
//===----------------------------------------------------------------------===//

def Nisa_AccessPatternAttr : AttrDef<Nisa_Dialect, "AccessPattern"> {
  let mnemonic = "ap";
  let summary = "which elements of a memory an operand reads or writes, in order";
  let description = [{
    An element offset and dims written as NKI writes them, `[stride,num]`
    (in elements), outermost first. A tile access also names its partitions,
    `start:end`, walked outermost: `[0:128, 0, [1,4096]]` is partitions
    0..127, elements 0..4095 of each. An HBM access is a plain pattern over
    the tensor's row-major elements: `[8192, [4096,128], [1,4096]]`.
    Elements are visited row-major over the dims; a DMA pairs the k-th
    element of its source with the k-th of its destination. A stride of 0
    repeats (broadcasts) an element.
  }];
  let parameters = (ins "int64_t":$partStart, "int64_t":$partCount, "int64_t":$offset,
                        ArrayRefParameter<"int64_t">:$sizes,
                        ArrayRefParameter<"int64_t">:$strides);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for an SBUF/PSUM access (it names partitions).
    bool isTile() const { return getPartCount() > 0; }
    /// Elements per partition (tile) or in all (HBM).
    int64_t getNumElements() const;
    /// Elements of the whole access, partitions included.
    int64_t getTotalElements() const { return getNumElements() * (isTile() ? getPartCount() : 1); }
    /// The smallest and one past the largest element offset touched, within a
    /// partition for tiles.
    std::pair<int64_t, int64_t> getExtent() const;
    /// Calls `f(p, e)` for every element in the access's order: the
    /// partition (0 for HBM) and the element offset within it (the flat
    /// index for HBM).
    void walkElements(::llvm::function_ref<void(int64_t, int64_t)> f) const;
    /// Elements per contiguous run: the innermost dims merged while each
    /// continues the one inside it (1 when the innermost dim is strided).
    int64_t getRunElements() const;
  }];
}

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Nisa_InstructionInterface : OpInterface<"InstructionOpInterface"> {
  let description = [{
    An instruction of one engine's stream. Gives the engine, the stream it is
    in (an engine, or a DMA queue), every memory access it makes, and its
    semaphore fields: `wait` lists (stream, count) pairs that must hold
    before it starts; `signal` increments its own stream's semaphore when it
    completes.
  }];
  let cppNamespace = "::mlir::nisa";
  let methods = [
    InterfaceMethod<"The engine this instruction runs on.", "::mlir::nisa::Engine",
                    "getInstructionEngine">,
    InterfaceMethod<"Every memory access, reads and writes.", "void", "getAccesses",
                    (ins "::llvm::SmallVectorImpl<::mlir::nisa::MemoryAccess> &":$accesses)>,
    StaticInterfaceMethod<"How its attributes fill its executable record.",
                    "const ::mlir::nisa::RecordEncoding &", "getRecordEncoding", (ins), [{
      return ConcreteOp::getRecordEncoding();
    }]>,
    InterfaceMethod<"The stream index: engines 0-3, DMA queue q is 4 + q.", "int64_t",
                    "getStream", (ins), [{}], [{
      return ::mlir::nisa::streamOf($_op.getInstructionEngine(),
                                    ::mlir::nisa::detail::queueOf($_op.getOperation()));
    }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

class Nisa_Op<string mnemonic, list<Trait> traits = []>
    : Op<Nisa_Dialect, mnemonic, traits>;

def Nisa_EntryOp : Nisa_Op<"entry", [Symbol]> {
  let summary = "an entry point whose inputs' sizes pick one of its bucket programs";
  let description = [{
    What the lowering makes of a `neuron.dispatch` function: the entry point
    `@sym_name` of the executable runs `callees[i]` (a `nisa.program`) for
    the smallest `bucket_sizes[i]` that holds the actual sizes of `symbols`.
    The signature attributes mean what they mean on `neuron.dispatch`
    (input and output dims with symbols as `-1 - k`, the masks the runtime
    passes, the work polynomial). After the lowering nothing but nisa ops
    remains, and the assembler reads entry points from these.
    ```mlir
    nisa.entry @f buckets [@f.seq128, @f.seq256] {symbols = ["seq"], ...}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, SymbolRefArrayAttr:$callees,
                       StrArrayAttr:$symbols,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "dims">:$input_dims,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "dims">:$output_dims,
                       DenseI64ArrayAttr:$masks,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "sizes">:$bucket_sizes,
                       DenseF64ArrayAttr:$work_coefficients,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "exponents">:$work_exponents);
  let assemblyFormat = "$sym_name `buckets` $callees attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The signature as the executable and the runners hold it.
    ::neuronc::BucketSignature getSignature();
  }];
}

def Nisa_ProgramOp : Nisa_Op<"program", [SymbolTable, Symbol, NoTerminator,
    IsolatedFromAbove, SingleBlock]> {
  let summary = "an executable program: HBM tensors and kernels, in program order";
  let description = [{
    The unit the executable holds one of per entry point (per bucket, when
    shapes are bucketed). Inputs and outputs are the `nisa.hbm` tensors of
    kind input/output, in index order.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$target);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `target` $target attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::llvm::StringRef":$target)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Nisa_HbmOp : Nisa_Op<"hbm", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "an HBM tensor: input, output, constant or internal scratch";
  let description = [{
    ```mlir
    nisa.hbm @x input 0 : tensor<4096x4096xf32>
    nisa.hbm @c const : tensor<64xf32> = dense<1.0>
    nisa.hbm @t internal : tensor<128x64xf32> offset = 4096
    nisa.hbm @w input 1 host_transposed : tensor<4096x14336xbf16>
    nisa.hbm @wq input 3 shard [0, 8] : tensor<512x4096xbf16>
    ```
    `offset` (bytes into the scratch area) is set on internal tensors by
    memory allocation. i1 elements take one byte. `host_transposed` marks an
    input the runtime loads with its last two dims swapped (the caller gives
    `[.., N, K]`, the program reads `[.., K, N]`; `--prepack-weights`).
    `shard = [dim, parts]` marks an input of a tensor-parallel program (one
    core's part of a group): the caller gives the whole tensor, `parts` times
    larger along `dim` of the shape it gives (the host layout), and core r of the N-core group receives part
    `r / (N / parts)` of it (`neuron.shard`, docs/tensor-parallel.md).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Nisa_HbmKind:$kind,
                       OptionalAttr<I64Attr>:$index, TypeAttrOf<AnyRankedTensor>:$type,
                       OptionalAttr<ElementsAttr>:$value, OptionalAttr<I64Attr>:$offset,
                       UnitAttr:$host_transposed, OptionalAttr<DenseI64ArrayAttr>:$shard);
  let assemblyFormat = [{
    $sym_name $kind ($index^)? (`host_transposed` $host_transposed^)? (`shard` $shard^)? `:` $type
    (`=` $value^)? (`offset` `=` $offset^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() { return ::llvm::cast<::mlir::RankedTensorType>(getType()); }
    ::mlir::Type getElementType() { return getTensorType().getElementType(); }
    int64_t getNumElements() { return getTensorType().getNumElements(); }
    int64_t getSizeInBytes();
  }];
}

def Nisa_KernelOp : Nisa_Op<"kernel", [Symbol, SymbolTable, NoTerminator, SingleBlock,
    HasParent<"ProgramOp">]> {
  let summary = "the instructions of one source kernel, with its tile allocations";
  let description = [{
    `kind` says which lowering produced it (rmsnorm, matmul, elementwise, ...);
    `source` names the neuron op it came from, and its location is that op's
    (a FusedLoc for a fused kernel). Kernels run back to back in program
    order, overlapping where the semaphores allow.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind, StrAttr:$source);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name $kind `from` $source attr-dict-with-keyword $body";
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::llvm::StringRef":$kind,
                                 "::llvm::StringRef":$source)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Nisa_AllocOp : Nisa_Op<"alloc", [Symbol, ParentOneOf<["KernelOp", "ProgramOp"]>]> {
  let summary = "an SBUF or PSUM tile: partitions × elements per partition";
  let description = [{
    ```mlir
    nisa.alloc @t0 sbuf 128x4096xf32
    nisa.alloc @acc psum 128x512xf32 offset = 2048
    ```
    `offset` (bytes within each partition, the same for every partition) is
    set by memory allocation. A tile always starts at partition 0.
    `discard` marks a tile that only receives results nobody reads (an
    engine must write its elementwise result somewhere when only its row
    sum is wanted); the race checker does not require its writes to be read.
    A tile in the program's body (not a kernel's) is *carried*: every kernel
    may name it, so that a value one kernel computed stays in SBUF for the
    kernels that read it (`--nisa-forward-stores`). A kernel's own tile of
    the same name hides it.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Nisa_MemorySpace:$space,
                       I64Attr:$partitions, I64Attr:$elements, TypeAttr:$element_type,
                       UnitAttr:$discard, OptionalAttr<I64Attr>:$offset);
  let assemblyFormat = [{
    $sym_name $space custom<TileShape>($partitions, $elements, $element_type)
    (`discard` $discard^)? (`offset` `=` $offset^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes each partition of the tile takes.
    int64_t getBytesPerPartition();
    /// The alignment of its offset (SBUF 64 bytes, PSUM 4).
    int64_t getAlignment() { return getSpace() == MemorySpace::psum ? 4 : 64; }
    /// Bytes per partition including the padding to the next aligned tile.
    int64_t getAlignedBytesPerPartition() {
      return (getBytesPerPartition() + getAlignment() - 1) / getAlignment() * getAlignment();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// A unit attribute that sets an executable flag (isa::Flag) when present.
class Nisa_RecordFlag<string attrName, string flagName> {
  string attr = attrName;
  string flag = flagName;
}

/// C++ text of a braced list of string literals.
class Nisa_CppStrings<list<string> items> {
  string text = "{" # !interleave(!foreach(s, items, "\"" # s # "\""), ", ") # "}";
}

/// An instruction: its engine fixed by the op or given by `engine`, and the
/// semaphore fields every instruction carries.
///
/// The `record*` fields say how its attributes fill its executable record
/// (docs/neff-format.md); the encoder in lib/Conversion/NisaToNeff reads
/// them through `getRecordEncoding()` and has no case per op. The opcode is
/// the Isa.def row whose mnemonic is the op's, and the function fields come
/// from the row's function kind (`func`; `op`; `op0`, `op1`; `cmp`).
class Nisa_Instruction<string mnemonic, list<Trait> traits = []>
    : Nisa_Op<mnemonic, !listconcat(traits, [HasParent<"KernelOp">,
        DeclareOpInterfaceMethods<Nisa_InstructionInterface>])> {
  dag syncArgs = (ins OptionalAttr<DenseI64ArrayAttr>:$wait, UnitAttr:$signal);
  let hasVerifier = 1;
  /// Memory operands in record order, each a symbol attribute `x` with its
  /// access pattern `x_ap`. A trailing `?` marks an optional one: present, it
  /// sets the next of its row's optional flags (Isa.def), lowest bit first.
  list<string> recordOperands = ["dst", "src"];
  /// The F32 attributes that give imm0 and imm1, as `name` or `name=default`
  /// (absent attributes give the default, else 0).
  list<string> recordImmediates = [];
  /// The integer attributes that fill params[0...] in order; an array
  /// attribute fills one parameter per element.
  list<string> recordParams = [];
  /// Unit attributes that set a flag.
  list<Nisa_RecordFlag> recordFlags = [];
  let extraClassDeclaration = [{
    /// How this op's attributes fill its executable record (NisaOps.td).
    static const ::mlir::nisa::RecordEncoding &getRecordEncoding() {
      static const ::mlir::nisa::RecordEncoding encoding{
  }] # Nisa_CppStrings<recordOperands>.text # ", "
     # Nisa_CppStrings<recordImmediates>.text # ", "
     # Nisa_CppStrings<recordParams>.text # ", {"
     # !interleave(!foreach(f, recordFlags,
          "{\"" # f.attr # "\", ::neuronc::isa::" # f.flag # "}"), ", ") # [{}};
      return encoding;
    }
  }];
}

def Nisa_DmaCopyOp : Nisa_Instruction<"dma_copy"> {
  let recordOperands = ["dst", "src", "indirect?"];
  let recordParams = ["indirect_stride", "indirect_bound"];
  let summary = "copies elements between HBM, SBUF and PSUM on one DMA queue";
  let description = [{
    The k-th element of the source pattern goes to the k-th of the
    destination: HBM↔SBUF, SBUF↔SBUF, PSUM→SBUF and HBM→HBM. Patterns have
    at most 4 dims (a tile's partitions count as one). With `indirect`, each
    partition row's HBM offset is moved by `index * indirect_stride`, the
    index read from the given tile (one i32 per partition): the embedding
    gather. An index outside `[0, indirect_bound)` is a run-time error.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            OptionalAttr<FlatSymbolRefAttr>:$indirect,
                            OptionalAttr<Nisa_AccessPatternAttr>:$indirect_ap,
                            OptionalAttr<I64Attr>:$indirect_stride,
                            OptionalAttr<I64Attr>:$indirect_bound), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`indirect` custom<Access>($indirect, $indirect_ap)^ `stride` $indirect_stride `bound` $indirect_bound)?
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_AllReduceOp : Nisa_Instruction<"all_reduce"> {
  let recordParams = ["group"];
  let summary = "sums an HBM tensor over the cores of a tensor-parallel group (ring all-reduce)";
  let description = [{
    Every core of the group (cores 0 .. group-1, each running this program)
    issues it on one of its DMA queues with its own partial `src`; once all
    have arrived, the collective engines run a ring all-reduce over the
    cores' links and each core's `dst` holds the elementwise sum (f32
    arithmetic; bf16 rounded once at the end). Both operands are contiguous
    HBM tensors of the same type and element count.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            I64Attr:$group), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    `group` $group (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_AllGatherOp : Nisa_Instruction<"all_gather"> {
  let recordParams = ["group", "outer"];
  let summary = "concatenates the parts of an HBM tensor the cores of a group hold (ring all-gather)";
  let description = [{
    Every core of the group (cores 0 .. group-1, each running this program)
    issues it on one of its DMA queues with its part `src`; once all have
    arrived, the collective engines run a ring all-gather and each core's
    `dst` holds the parts in core order along the gathered dim: seen as
    `outer` blocks (the product of the dims before the gathered one), block
    o of core r's part lands at `dst[(o * group + r) * n + i]`, `n` the
    part's elements per block. Both operands are contiguous HBM tensors of
    one type; `dst` has `group` times the elements of `src`.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            I64Attr:$group, I64Attr:$outer), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    `group` $group `outer` $outer (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)?
    attr-dict
  }];
}

def Nisa_ReduceScatterOp : Nisa_Instruction<"reduce_scatter"> {
  let recordParams = ["group", "outer"];
  let summary = "sums an HBM tensor over the cores of a group, each core keeping its part (ring reduce-scatter)";
  let description = [{
    Every core of the group (cores 0 .. group-1, each running this program)
    issues it on one of its DMA queues with its partial sum `src` of the
    whole tensor; once all have arrived, the collective engines run a ring
    reduce-scatter and core r's `dst` holds part r of the sum (f32
    arithmetic): seen as `outer` blocks, `dst[o * n + i]` is the sum of
    `src[(o * group + r) * n + i]`, `n` the part's elements per block. Both
    operands are contiguous HBM tensors of one float type; `src` has `group`
    times the elements of `dst`.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            I64Attr:$group, I64Attr:$outer), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    `group` $group `outer` $outer (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)?
    attr-dict
  }];
}

def Nisa_AllToAllOp : Nisa_Instruction<"all_to_all"> {
  let recordParams = ["group", "src_inner", "dst_inner"];
  let summary = "exchanges the parts of an HBM tensor between every pair of cores of a group";
  let description = [{
    Every core of the group (cores 0 .. group-1, each running this program)
    issues it on one of its DMA queues; once all have arrived, core r's
    part j of `src` goes to core j, where it lands as part r of `dst`.
    `src` is seen as [outer, group, src_inner] (part j: the src_inner runs
    at j), `dst` as [outer', group, dst_inner] (part i: the dst_inner runs at
    i); a part's elements are read in the first order and written in the
    second, so that splitting along one dim and concatenating along another
    (Ulysses-style sequence/head exchanges, expert routing) is one
    instruction. Both operands are contiguous HBM tensors of one type and
    element count; src_inner and dst_inner divide a part.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            I64Attr:$group, I64Attr:$src_inner, I64Attr:$dst_inner), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    `group` $group `split` $src_inner `concat` $dst_inner
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_SendRecvOp : Nisa_Instruction<"send_recv"> {
  let recordParams = ["group", "shift", "cyclic"];
  let summary = "sends an HBM tensor to the core `shift` places on and receives the one `shift` places back";
  let description = [{
    Every core of the group (cores 0 .. group-1, each running this program)
    issues it on one of its DMA queues; once all have arrived, core r's
    `src` is copied into the `dst` of core r + shift (mod group when
    `cyclic` is 1). A core nothing sends to (r - shift outside 0 ..
    group-1, not cyclic) receives zeros: pipeline stages pass activations
    on with shift 1, the last sending nothing and the first receiving
    zeros. Both operands are contiguous HBM tensors of one type and element
    count; shift is in 1 - group .. group - 1 and not 0.
  }];
  let arguments = !con((ins I64Attr:$queue, FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            I64Attr:$group, I64Attr:$shift, I64Attr:$cyclic), syncArgs);
  let assemblyFormat = [{
    custom<Queue>($queue) custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    `group` $group `shift` $shift `cyclic` $cyclic
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_LoadStationaryOp : Nisa_Instruction<"load_stationary"> {
  let recordOperands = ["src"];
  let summary = "TensorE: loads the stationary matrix [K partitions, M ≤ 128] into the array";
  let arguments = !con((ins FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = "custom<Access>($src, $src_ap) (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict";
}

def Nisa_MultiplyMovingOp : Nisa_Instruction<"multiply_moving"> {
  let recordFlags = [Nisa_RecordFlag<"start", "kStart">];
  let summary = "TensorE: PSUM[M, N] (+)= stationaryᵀ · moving[K, N ≤ 512]";
  let description = [{
    Streams the moving matrix through the array loaded by the last
    `load_stationary` and accumulates into one PSUM bank in fp32. `start`
    begins an accumulation group: it overwrites the accumulator instead of
    adding to it.
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            UnitAttr:$start), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap) (`start` $start^)?
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_TransposeOp : Nisa_Instruction<"transpose"> {
  let summary = "transposes a [P, F] block: TensorE into PSUM (≤128×128), VectorE in SBUF (≤32×32)";
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_ActivationOp : Nisa_Instruction<"activation"> {
  let recordOperands = ["dst", "src", "scale?", "bias?", "acc?"];
  let recordImmediates = ["scale_imm=1", "bias_imm"];
  let summary = "ScalarE: dst = func(src * scale + bias), optionally summing each row";
  let description = [{
    `scale` and `bias` are immediates or per-partition values ([P, 1]
    accesses). With `accumulate`, the sum of each partition's results is
    written to that [P, 1] access (`activation_reduce`).
  }];
  let arguments = !con((ins Nisa_ActFunc:$func, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap,
                            OptionalAttr<F32Attr>:$scale_imm,
                            OptionalAttr<FlatSymbolRefAttr>:$scale,
                            OptionalAttr<Nisa_AccessPatternAttr>:$scale_ap,
                            OptionalAttr<F32Attr>:$bias_imm,
                            OptionalAttr<FlatSymbolRefAttr>:$bias,
                            OptionalAttr<Nisa_AccessPatternAttr>:$bias_ap,
                            OptionalAttr<FlatSymbolRefAttr>:$acc,
                            OptionalAttr<Nisa_AccessPatternAttr>:$acc_ap), syncArgs);
  let assemblyFormat = [{
    $func custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`scale` custom<Operand>($scale_imm, $scale, $scale_ap)^)?
    (`bias` custom<Operand>($bias_imm, $bias, $bias_ap)^)?
    (`accumulate` custom<Access>($acc, $acc_ap)^)?
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_TensorTensorOp : Nisa_Instruction<"tensor_tensor"> {
  let recordOperands = ["dst", "lhs", "rhs"];
  let summary = "VectorE/GpSimdE: dst = a op b, elementwise";
  let arguments = !con((ins Nisa_Engine:$engine, Nisa_AluOp:$op, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$lhs,
                            Nisa_AccessPatternAttr:$lhs_ap, FlatSymbolRefAttr:$rhs,
                            Nisa_AccessPatternAttr:$rhs_ap), syncArgs);
  let assemblyFormat = [{
    $engine $op custom<Access>($dst, $dst_ap) `=` custom<Access>($lhs, $lhs_ap) `,`
    custom<Access>($rhs, $rhs_ap) (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_TensorScalarOp : Nisa_Instruction<"tensor_scalar"> {
  let recordOperands = ["dst", "src", "s0?", "s1?"];
  let recordImmediates = ["imm0", "imm1"];
  let recordFlags = [Nisa_RecordFlag<"reverse0", "kReverse0">,
                     Nisa_RecordFlag<"reverse1", "kReverse1">];
  let summary = "dst = (src op0 s0) op1 s1 with immediate or per-partition scalars";
  let description = [{
    Without `op1` only one operation is applied. `reverse0` computes
    `s0 op0 src` instead (likewise `reverse1`). Runs on VectorE, ScalarE or
    GpSimdE.
  }];
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap, Nisa_AluOp:$op0,
                            OptionalAttr<F32Attr>:$imm0,
                            OptionalAttr<FlatSymbolRefAttr>:$s0,
                            OptionalAttr<Nisa_AccessPatternAttr>:$s0_ap, UnitAttr:$reverse0,
                            OptionalAttr<Nisa_AluOp>:$op1, OptionalAttr<F32Attr>:$imm1,
                            OptionalAttr<FlatSymbolRefAttr>:$s1,
                            OptionalAttr<Nisa_AccessPatternAttr>:$s1_ap, UnitAttr:$reverse1),
                       syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    $op0 (`reverse` $reverse0^)? custom<Operand>($imm0, $s0, $s0_ap)
    (`then` $op1^ (`reverse` $reverse1^)? custom<Operand>($imm1, $s1, $s1_ap))?
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_ScalarTensorTensorOp : Nisa_Instruction<"scalar_tensor_tensor"> {
  let recordOperands = ["dst", "lhs", "s0?", "rhs"];
  let recordImmediates = ["imm0"];
  let summary = "VectorE/GpSimdE: dst = (a op0 s) op1 b in one pass";
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$lhs,
                            Nisa_AccessPatternAttr:$lhs_ap, Nisa_AluOp:$op0,
                            OptionalAttr<F32Attr>:$imm0,
                            OptionalAttr<FlatSymbolRefAttr>:$s0,
                            OptionalAttr<Nisa_AccessPatternAttr>:$s0_ap, Nisa_AluOp:$op1,
                            FlatSymbolRefAttr:$rhs, Nisa_AccessPatternAttr:$rhs_ap), syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` `(` custom<Access>($lhs, $lhs_ap) $op0
    custom<Operand>($imm0, $s0, $s0_ap) `)` $op1 custom<Access>($rhs, $rhs_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_TensorReduceOp : Nisa_Instruction<"tensor_reduce"> {
  let summary = "VectorE/GpSimdE: reduces the innermost free dim of src into dst";
  let description = [{
    `dst` has src's pattern without its last dim; `op` is add, max, min or
    multiply. Accumulates in fp32.
  }];
  let arguments = !con((ins Nisa_Engine:$engine, Nisa_AluOp:$op, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    $engine $op custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_TensorCopyOp : Nisa_Instruction<"tensor_copy"> {
  let summary = "copies (and converts the element type of) a tile access";
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_ReciprocalOp : Nisa_Instruction<"reciprocal"> {
  let summary = "VectorE: dst = 1 / src";
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_SelectOp : Nisa_Instruction<"select"> {
  let recordOperands = ["dst", "cond", "on_true", "on_false"];
  let summary = "VectorE/GpSimdE: dst = cond != 0 ? a : b, elementwise";
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$cond,
                            Nisa_AccessPatternAttr:$cond_ap, FlatSymbolRefAttr:$on_true,
                            Nisa_AccessPatternAttr:$on_true_ap, FlatSymbolRefAttr:$on_false,
                            Nisa_AccessPatternAttr:$on_false_ap), syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` custom<Access>($cond, $cond_ap) `?`
    custom<Access>($on_true, $on_true_ap) `:` custom<Access>($on_false, $on_false_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_BnStatsOp : Nisa_Instruction<"bn_stats"> {
  let summary = "VectorE: per-partition (count, mean, M2) of up to 512 elements";
  let description = [{
    Writes 3 values per partition: the element count, their mean and the sum
    of squared deviations from it. `bn_aggr` combines several.
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_BnAggrOp : Nisa_Instruction<"bn_aggr"> {
  let summary = "VectorE: combines bn_stats triples into (mean, variance) per partition";
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_IotaOp : Nisa_Instruction<"iota"> {
  let recordOperands = ["dst"];
  let recordParams = ["base", "partition_step", "steps"];
  let summary = "GpSimdE: dst[p, f...] = base + p * partition_step + Σ f_k * step_k";
  let description = [{
    `steps` has one entry per free dim of the destination pattern.
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            I64Attr:$base, I64Attr:$partition_step,
                            DenseI64ArrayAttr:$steps), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` $base `+` $partition_step `*` `p` `+` $steps
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_AffineSelectOp : Nisa_Instruction<"affine_select"> {
  let recordImmediates = ["fill"];
  let recordParams = ["constant", "partition_coeff", "coeffs"];
  let summary = "GpSimdE: dst = (c + cp·p + Σ c_k·f_k) cmp 0 ? src : fill";
  let description = [{
    The predicate is affine in the partition index and the free indices of
    the destination pattern (one coefficient per free dim): causal masks and
    identity matrices without a mask tensor.
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$dst, Nisa_AccessPatternAttr:$dst_ap,
                            FlatSymbolRefAttr:$src, Nisa_AccessPatternAttr:$src_ap,
                            Nisa_CmpOp:$cmp, I64Attr:$constant, I64Attr:$partition_coeff,
                            DenseI64ArrayAttr:$coeffs, F32Attr:$fill), syncArgs);
  let assemblyFormat = [{
    custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap) `if` $constant `+`
    $partition_coeff `*` `p` `+` $coeffs $cmp `else` $fill
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_PartitionReduceOp : Nisa_Instruction<"partition_reduce"> {
  let summary = "GpSimdE: reduces across partitions, src [P, F] into dst [1, F]";
  let arguments = !con((ins Nisa_AluOp:$op, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, FlatSymbolRefAttr:$src,
                            Nisa_AccessPatternAttr:$src_ap), syncArgs);
  let assemblyFormat = [{
    $op custom<Access>($dst, $dst_ap) `=` custom<Access>($src, $src_ap)
    (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

def Nisa_MemsetOp : Nisa_Instruction<"memset"> {
  let recordOperands = ["dst"];
  let recordImmediates = ["value"];
  let summary = "VectorE/GpSimdE: fills a tile access with a value";
  let arguments = !con((ins Nisa_Engine:$engine, FlatSymbolRefAttr:$dst,
                            Nisa_AccessPatternAttr:$dst_ap, F32Attr:$value), syncArgs);
  let assemblyFormat = [{
    $engine custom<Access>($dst, $dst_ap) `=` $value (`wait` `(` custom<Waits>($wait)^ `)`)? (`signal` $signal^)? attr-dict
  }];
}

#endif // NISA_OPS_TD
