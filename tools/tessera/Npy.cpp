#include "tessera/Npy.h"

#include "tessera/AtomicFile.h"
#include "tessera/Driver.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <regex>

namespace tessera::driver {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// Bytes per element of a supported type string ("<f4" -> 4), 0 for an unsupported one.
size_t elementBytes(const std::string &descr) {
  static const std::regex form(R"([<|=]([fiuV])([1248]))");
  std::smatch m;
  if (!std::regex_match(descr, m, form)) return 0;
  return static_cast<size_t>(std::stoi(m[2]));
}

} // namespace

std::string npyDescr(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F32: return "<f4";
  case isa::DType::F16: return "<f2";
  case isa::DType::BF16: return "<u2";
  case isa::DType::F8E4M3:
  case isa::DType::F8E5M2:
  case isa::DType::U8: return "|u1";
  case isa::DType::I32: return "<i4";
  case isa::DType::U32: return "<u4";
  case isa::DType::I8: return "|i1";
  case isa::DType::I16: return "<i2";
  case isa::DType::U16: return "<u2";
  }
  return "<f4";
}

std::string npyStorageName(isa::DType dtype) {
  const std::string d = npyDescr(dtype);
  const char kind = d[1];
  const int bits = 8 * (d[2] - '0');
  return fmt::format("{}{}", kind == 'f' ? "float" : kind == 'i' ? "int" : "uint", bits);
}

void writeNpy(const std::filesystem::path &path, const NpyArray &array) {
  std::string shape = array.shape.size() == 1 ? fmt::format("({},)", array.shape[0])
                                              : fmt::format("({})", fmt::join(array.shape, ", "));
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", array.descr, shape);
  // Magic (6), version (2), header length (2), header: padded with spaces and a newline to a multiple of 64.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic, kMagicSize);
  bytes += '\x01'; // version 1.0
  bytes += '\x00';
  const uint16_t length = static_cast<uint16_t>(header.size());
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>(length >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char *>(array.data.data()), array.data.size());
  AtomicFile(path, "output").commit(bytes); // whole or not at all: an older file survives a failed write
}

NpyArray readNpy(const std::filesystem::path &path, const NpyHeaderCheck &checkHeader) {
  auto fail = [&](const std::string &why) {
    return InputError(fmt::format("'{}' is not a .npy file Tessera can read: {}", path.string(), why), {},
                      "save it with numpy.save (little-endian, C order)");
  };
  // A pipe or a device would block the open or the read with no writer, past any --timeout: only files are read.
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw InputError(fmt::format("cannot read '{}': it is not a regular file (a folder, a pipe or a device)",
                                 path.string()),
                     {}, "save the array to a file with numpy.save and pass that");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}'", path.string()));
  char prefix[kMagicSize + 2];
  if (!in.read(prefix, sizeof prefix) || std::string(prefix, kMagicSize) != std::string(kMagic, kMagicSize))
    throw fail("it does not start with NumPy's magic bytes");
  const int major = static_cast<unsigned char>(prefix[kMagicSize]);
  size_t headerLength = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char *>(b), 2)) throw fail("its header is cut short");
    headerLength = b[0] | (size_t(b[1]) << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char *>(b), 4)) throw fail("its header is cut short");
    headerLength = b[0] | (size_t(b[1]) << 8) | (size_t(b[2]) << 16) | (size_t(b[3]) << 24);
  } else {
    throw fail(fmt::format("format version {} is unknown", major));
  }
  if (headerLength > (1u << 20)) throw fail("its header is implausibly long");
  std::string header(headerLength, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(headerLength))) throw fail("its header is cut short");

  static const std::regex descrField(R"('descr'\s*:\s*'([^']*)')"), orderField(R"('fortran_order'\s*:\s*(True|False))"),
      shapeField(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m;
  NpyArray array;
  if (!std::regex_search(header, m, descrField)) throw fail("its header has no 'descr'");
  array.descr = m[1];
  if (array.descr.size() == 3 && array.descr[0] == '>' && array.descr[2] != '1') throw fail("it is big-endian");
  const size_t element = elementBytes(array.descr);
  if (element == 0) throw fail(fmt::format("its element type '{}' is not a number type", array.descr));
  if (!std::regex_search(header, m, orderField)) throw fail("its header has no 'fortran_order'");
  if (m[1] == "True") throw fail("it is in Fortran order (save a C-ordered array: numpy.ascontiguousarray)");
  if (!std::regex_search(header, m, shapeField)) throw fail("its header has no 'shape'");
  // The sizes: non-negative integers separated by commas ("(128, 1024)", "(3,)", "()" for a scalar).
  const std::string dims = m[1];
  uint64_t elements = 1;
  size_t at = 0;
  while (at < dims.size()) {
    const size_t comma = std::min(dims.find(',', at), dims.size());
    std::string token = dims.substr(at, comma - at);
    std::erase_if(token, [](char c) { return c == ' ' || c == '\t'; });
    at = comma + 1;
    if (token.empty() && comma == dims.size()) break; // after a trailing comma
    uint64_t d = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), d);
    if (token.empty() || error == std::errc::invalid_argument || end != token.data() + token.size())
      throw fail(fmt::format("its shape ({}) is not a list of sizes", dims));
    if (error == std::errc::result_out_of_range || d > (uint64_t{1} << 40) ||
        __builtin_mul_overflow(elements, d, &elements) || elements > (uint64_t{1} << 40))
      throw fail(fmt::format("its shape ({}) is too large", dims));
    array.shape.push_back(static_cast<int64_t>(d));
  }
  // The file must hold what its header claims before anything that size is allocated.
  const std::streamoff dataStart = in.tellg();
  in.seekg(0, std::ios::end);
  const uint64_t available = static_cast<uint64_t>(std::max<std::streamoff>(0, in.tellg() - dataStart));
  in.seekg(dataStart);
  const uint64_t needed = elements * element;
  if (available < needed)
    throw fail(fmt::format("it holds {} bytes of data, fewer than the {} its shape ({}) needs", available, needed,
                           dims));
  if (checkHeader) checkHeader(array);
  array.data.resize(static_cast<size_t>(needed));
  if (!in.read(reinterpret_cast<char *>(array.data.data()), static_cast<std::streamsize>(array.data.size())))
    throw fail(fmt::format("it holds fewer than the {} bytes its shape needs", array.data.size()));
  return array;
}

} // namespace tessera::driver
