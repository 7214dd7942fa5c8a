//===- Npy.h - numpy .npy files <-> host tensors ----------------*- C++ -*-===//
//
// Reads and writes numpy's .npy format (versions 1.0-3.0) for the element
// types the device has. Little-endian, C order only.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_HOST_NPY_H
#define NEURONC_HOST_NPY_H

#include "neuronc/Host/Tensor.h"

#include "llvm/Support/Error.h"

namespace neuronc {

/// Decodes the bytes of a .npy file. Accepted dtypes: <f4, <f2, <i4, |b1 as
/// they are; <f8 is converted to f32 and <i8 to i32 (values must fit), and
/// `fileDType` then says F64/I64 so that the caller can warn; |i1, <i2, |u1
/// and <u2 (numpy's int8, int16, uint8, uint16) widen to i32. Big-endian data,
/// fortran_order=True and other dtypes are errors that say so.
llvm::Expected<Tensor> decodeNpy(llvm::StringRef bytes, DType *fileDType = nullptr);

/// Encodes a tensor as a version 1.0 .npy file. bf16 has no numpy dtype and
/// is written as <f4 (the values are exact).
std::string encodeNpy(const Tensor &t);

} // namespace neuronc

#endif // NEURONC_HOST_NPY_H
