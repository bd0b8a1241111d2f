#pragma once
/// \file
/// NumPy's .npy files (format 1.0 and 2.0, little-endian, C order): how `tessera deploy` writes a kernel's inputs
/// and the simulator's outputs, and how a bundle's files are read back. bfloat16 and fp8 have no NumPy dtype of
/// their own, so their bits are stored as uint16 / uint8 (the bundle's manifest names the real dtype).

#include "tessera/isa/DType.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tessera::driver {

/// An array as a .npy file holds it.
struct NpyArray {
  std::string descr;            ///< NumPy's type string: "<f4", "<u2", "|u1"...
  std::vector<int64_t> shape;
  std::vector<std::byte> data;  ///< elements in C order, little-endian
};

/// The .npy type string Tessera stores `dtype` as: its own where NumPy has it ("<f4", "<f2", "<i4", "<u4",
/// "|u1"), else the unsigned integer of its width holding its bits ("<u2" for bf16, "|u1" for fp8).
std::string npyDescr(isa::DType dtype);
/// The NumPy name of that storage type ("float32", "uint16"...), for the bundle's manifest.
std::string npyStorageName(isa::DType dtype);

/// Writes `array` to `path`. Throws InputError naming the path when it cannot be written.
void writeNpy(const std::filesystem::path &path, const NpyArray &array);

/// Called with the array's type and shape (its data still empty) once the header is read and before the data is:
/// throw to refuse the file without reading or allocating its data.
using NpyHeaderCheck = std::function<void(const NpyArray &header)>;

/// Reads a .npy file. Throws InputError naming the path and what is wrong (not a regular file, not a .npy file,
/// big-endian, Fortran order, a header it cannot read, a data size that does not match the header), and whatever
/// `checkHeader` throws, before the data is read.
NpyArray readNpy(const std::filesystem::path &path, const NpyHeaderCheck &checkHeader = nullptr);

} // namespace tessera::driver
