//===- AllocateMemory.cpp - nisa-allocate-memory ------------------------===//
//
// Liveness-based placement of SBUF and PSUM tiles (bytes within every
// partition) and of internal HBM tensors (bytes in one scratch area).
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SmallPtrSet.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

#include <map>

namespace mlir::nisa {
#define GEN_PASS_DEF_NISAALLOCATEMEMORYPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// One thing to place: its size, alignment and live range in program order.
struct Item {
  Operation *op;
  int64_t bytes;
  int64_t align;
  int64_t first = -1, last = -1;
  int64_t offset = -1;
};

/// First-fit placement over a byte range with live intervals, starting the
/// search where the previous placement ended so that consecutive users
/// prefer fresh bytes.
class Arena {
public:
  /// `fresh`: start each search where the previous placement ended (so
  /// consecutive kernels prefer different bytes and can overlap); else
  /// always at the lowest address (densest).
  Arena(int64_t capacity, int64_t bank, bool fresh = true)
      : capacity(capacity), bank(bank), fresh(fresh) {}

  /// Places `item`; false when it does not fit beside the live ones.
  bool place(Item &item) {
    // Retire what died before this item starts.
    for (auto it = live.begin(); it != live.end();) {
      if (it->second.last < item.first)
        it = live.erase(it);
      else
        ++it;
    }
    for (int attempt = fresh ? 0 : 1; attempt < 2; ++attempt) {
      int64_t start = attempt == 0 ? cursor : 0;
      if (std::optional<int64_t> at = findFrom(start, item)) {
        item.offset = *at;
        live.insert({*at, {*at + item.bytes, item.last}});
        cursor = *at + item.bytes;
        if (cursor >= capacity)
          cursor = 0;
        return true;
      }
    }
    return false;
  }

  /// Bytes in use by live items, for the error message.
  int64_t used() const {
    int64_t n = 0;
    for (auto &[lo, v] : live)
      n += v.end - lo;
    return n;
  }
  size_t liveCount() const { return live.size(); }

private:
  struct Live {
    int64_t end;
    int64_t last;
  };
  /// Aligned start at or after `at` that does not cross a bank when the
  /// item fits in one, and starts a bank when it spans several (each bank
  /// of it is then a whole accumulator).
  int64_t fix(int64_t at, const Item &item) const {
    at = (at + item.align - 1) / item.align * item.align;
    if (bank && item.bytes <= bank && at / bank != (at + item.bytes - 1) / bank)
      at = (at / bank + 1) * bank;
    if (bank && item.bytes > bank)
      at = (at + bank - 1) / bank * bank;
    return at;
  }
  std::optional<int64_t> findFrom(int64_t start, const Item &item) const {
    int64_t at = fix(start, item);
    for (auto it = live.begin(); it != live.end(); ++it) {
      if (it->second.end <= at)
        continue;
      if (at + item.bytes <= it->first)
        break;
      at = fix(std::max(at, it->second.end), item);
    }
    if (at + item.bytes <= capacity)
      return at;
    return std::nullopt;
  }

  int64_t capacity, bank;
  bool fresh;
  int64_t cursor = 0;
  std::map<int64_t, Live> live; ///< start -> (end, last use)
};

struct AllocateMemoryPass
    : mlir::nisa::impl::NisaAllocateMemoryPassBase<AllocateMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    const neuronc::HardwareModel *hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    llvm::MapVector<Operation *, Item> items;
    SmallVector<Item *> order = collect(program, items);
    // Placing where the previous placement ended can leave holes too small
    // for a tile although the live ones would fit packed; then the tiles
    // are placed again, each at the lowest address that fits.
    if (place(order, *hw, /*fresh=*/true, /*report=*/false) ||
        place(order, *hw, /*fresh=*/false, /*report=*/false))
      return;
    // Loads started early hold their tiles across the kernel before theirs;
    // where that leaves no room, they go back to their kernels.
    if (returnPrefetches(program)) {
      order = collect(program, items);
      if (place(order, *hw, /*fresh=*/true, /*report=*/false))
        return;
    }
    if (!place(order, *hw, /*fresh=*/false, /*report=*/true))
      return signalPassFailure();
  }

  /// Fills `items` with every tile and internal tensor of `program` and its
  /// live range in instruction order, drops tiles nobody touches, and
  /// returns the items by first use.
  static SmallVector<Item *> collect(ProgramOp program, llvm::MapVector<Operation *, Item> &items) {
    items.clear();
    MemoryResolver resolver(program);
    for (HbmOp t : program.getBodyBlock().getOps<HbmOp>())
      if (t.getKind() == HbmKind::internal)
        items[t] = {t, t.getSizeInBytes(), 64};
    // Carried tiles (in the program's body) live across the kernels that
    // name them.
    for (AllocOp a : program.getBodyBlock().getOps<AllocOp>())
      items[a] = {a, a.getBytesPerPartition(), a.getAlignment()};
    int64_t index = 0;
    SmallVector<KernelOp> kernels(program.getBodyBlock().getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      for (AllocOp a : kernel.getBodyBlock().getOps<AllocOp>())
        items[a] = {a, a.getBytesPerPartition(), a.getAlignment()};
      for (Operation &op : kernel.getBodyBlock()) {
        auto inst = dyn_cast<InstructionOpInterface>(op);
        if (!inst)
          continue;
        SmallVector<MemoryAccess> accesses;
        inst.getAccesses(accesses);
        for (const MemoryAccess &a : accesses) {
          auto it = items.find(resolver.lookup(kernel, a.memory));
          if (it == items.end())
            continue;
          Item &item = it->second;
          if (item.first < 0)
            item.first = index;
          item.last = index;
        }
        ++index;
      }
    }
    // Tiles nobody touches are dropped: out of the map first, then erased
    // (the other order read freed ops; AddressSanitizer found it).
    SmallVector<Operation *> unused;
    for (auto &[op, item] : items)
      if (item.first < 0 && isa<AllocOp>(op))
        unused.push_back(op);
    items.remove_if([](auto &kv) { return kv.second.first < 0 && isa<AllocOp>(kv.first); });
    for (Operation *op : unused)
      op->erase();

    SmallVector<Item *> order;
    for (auto &kv : items)
      order.push_back(&kv.second);
    llvm::stable_sort(order, [](Item *a, Item *b) { return a->first < b->first; });
    return order;
  }

  /// Moves every instruction `--nisa-prefetch-loads` started in an earlier
  /// kernel back to the start of its own kernel, and the carried tiles only
  /// that kernel names back into it. False when there was none.
  static bool returnPrefetches(ProgramOp program) {
    SymbolTable symbols(program);
    SmallVector<Operation *> moved;
    program.walk([&](Operation *op) {
      if (op->hasAttr(kPrefetchForAttrName))
        moved.push_back(op);
    });
    if (moved.empty())
      return false;
    llvm::DenseMap<Operation *, Operation *> firstInstruction; // kernel -> insertion point
    for (Operation *op : moved) {
      auto owner = symbols.lookup<KernelOp>(
          op->getAttrOfType<FlatSymbolRefAttr>(kPrefetchForAttrName).getValue());
      op->removeAttr(kPrefetchForAttrName);
      if (!owner)
        continue; // the assembler reports it
      Operation *&at = firstInstruction[owner];
      if (!at)
        at = &*llvm::find_if(owner.getBodyBlock(), [](Operation &o) {
          return isa<InstructionOpInterface>(o);
        });
      op->moveBefore(at);
    }
    // A carried tile whose every user is now in one kernel goes back to it.
    llvm::DenseMap<StringAttr, llvm::SmallPtrSet<Operation *, 2>> users; // name -> kernels
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>())
      k.walk([&](InstructionOpInterface inst) {
        SmallVector<MemoryAccess> accesses;
        inst.getAccesses(accesses);
        for (const MemoryAccess &a : accesses)
          users[a.memory.getAttr()].insert(k);
      });
    for (AllocOp a : llvm::make_early_inc_range(program.getBodyBlock().getOps<AllocOp>())) {
      auto it = users.find(a.getSymNameAttr());
      if (it != users.end() && it->second.size() == 1) {
        auto k = cast<KernelOp>(*it->second.begin());
        if (llvm::any_of(k.getBodyBlock().getOps<AllocOp>(),
                         [&](AllocOp own) { return own.getSymName() == a.getSymName(); }))
          continue; // a tile of its own by that name would shadow it
        a->moveBefore(&k.getBodyBlock().front());
      }
    }
    return true;
  }

  /// Places every item in `order`; false (with an error when `report`)
  /// when one does not fit.
  bool place(ArrayRef<Item *> order, const neuronc::HardwareModel &target, bool fresh,
             bool report) {
    const neuronc::HardwareModel *hw = &target;
    Arena sbuf(hw->sbufPartitionBytes, 0, fresh),
        psum(hw->psumPartitionBytes, hw->psumBankBytes(), fresh);
    Arena scratch(std::numeric_limits<int64_t>::max() / 4, 0);
    for (Item *item : order) {
      Arena *arena = &scratch;
      StringRef what = "HBM scratch";
      int64_t capacity = 0;
      if (auto a = dyn_cast<AllocOp>(item->op)) {
        bool isSbuf = a.getSpace() == MemorySpace::sbuf;
        arena = isSbuf ? &sbuf : &psum;
        what = isSbuf ? "SBUF" : "PSUM";
        capacity = isSbuf ? hw->sbufPartitionBytes : hw->psumPartitionBytes;
      }
      if (item->first < 0) {
        // An internal tensor no instruction touches still needs a place.
        item->first = item->last = 0;
      }
      if (arena == &scratch && !reuseScratch)
        item->last = std::numeric_limits<int64_t>::max();
      if (!arena->place(*item)) {
        if (!report)
          return false;
        auto kernel = item->op->getParentOfType<KernelOp>();
        InFlightDiagnostic d = item->op->emitOpError("does not fit: ");
        d << what << " needs " << item->bytes << " more bytes per partition at instruction "
          << item->first << " while " << arena->liveCount() << " live tiles use "
          << arena->used() << " of " << capacity << " on " << hw->name;
        if (kernel)
          d << " (kernel @" << kernel.getSymName() << ", " << kernel.getKind() << " from "
            << kernel.getSource() << "); split this kernel so fewer or smaller tiles are live at once";
        return false;
      }
      Builder b(item->op->getContext());
      if (auto a = dyn_cast<AllocOp>(item->op))
        a.setOffsetAttr(b.getI64IntegerAttr(item->offset));
      else
        cast<HbmOp>(item->op).setOffsetAttr(b.getI64IntegerAttr(item->offset));
    }
    return true;
  }
};

} // namespace
