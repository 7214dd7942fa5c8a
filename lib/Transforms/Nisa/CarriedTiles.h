//===- CarriedTiles.h - Tiles that live across kernels ----------*- C++ -*-===//
//
// Shared by the passes that keep a kernel's tile alive beyond its kernel
// (nisa-forward-stores, nisa-prefetch-loads): the tile moves to the
// program's body under its kernel's name.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_TRANSFORMS_CARRIEDTILES_H
#define NEURONC_LIB_TRANSFORMS_CARRIEDTILES_H

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::nisa {

/// Makes `tile`, an alloc of `owner`, a carried tile: renames it
/// `@<owner>.<tile>` (with a numeric suffix if the program has that name)
/// in `owner`, moves it before the program's first kernel and registers it
/// in `symbols`, the program's table. Returns the new name, or failure
/// (with an error on the tile) when its uses cannot be renamed.
FailureOr<StringAttr> carryTile(AllocOp tile, KernelOp owner, SymbolTable &symbols);

} // namespace mlir::nisa

#endif // NEURONC_LIB_TRANSFORMS_CARRIEDTILES_H
