//===- CarriedTiles.cpp - Tiles that live across kernels ------------------===//

#include "CarriedTiles.h"

using namespace mlir;
using namespace mlir::nisa;

FailureOr<StringAttr> mlir::nisa::carryTile(AllocOp tile, KernelOp owner, SymbolTable &symbols) {
  std::string base = (owner.getSymName() + "." + tile.getSymName()).str();
  std::string name = base;
  for (int n = 1; symbols.lookup(name); ++n)
    name = base + "." + std::to_string(n);
  StringAttr newName = StringAttr::get(tile.getContext(), name);
  if (failed(SymbolTable::replaceAllSymbolUses(tile.getSymNameAttr(), newName, owner)))
    return tile.emitOpError("could not be renamed to carry it across kernels");
  tile.setSymName(newName);
  auto program = owner->getParentOfType<ProgramOp>();
  tile->moveBefore(*program.getBodyBlock().getOps<KernelOp>().begin());
  symbols.insert(tile);
  return newName;
}
