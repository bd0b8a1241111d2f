#pragma once
/// \file
/// Host memory that starts at zero and costs nothing until written: an anonymous mapping of fresh pages, so a large
/// buffer of which a kernel touches little (128 MiB of VMEM, the checks' bitmap of SBUF) is cheap run after run.
/// calloc does that only while glibc serves large blocks from fresh mappings; once it reuses freed memory for them
/// (its mmap threshold grows after the first free), calloc clears every byte, which was a tenth of a repeated
/// timing-only run with checks.

#include <cstddef>
#include <utility>

namespace tessera::sim {

class ZeroedPages {
public:
  ZeroedPages() = default;
  /// `bytes` zero bytes (none: null data). Throws std::bad_alloc when the host cannot map them.
  explicit ZeroedPages(size_t bytes);
  ~ZeroedPages();
  ZeroedPages(ZeroedPages &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  ZeroedPages &operator=(ZeroedPages &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }

  std::byte *data() const { return data_; }

private:
  std::byte *data_ = nullptr;
  size_t bytes_ = 0;
};

} // namespace tessera::sim
