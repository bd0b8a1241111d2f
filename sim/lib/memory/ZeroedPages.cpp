#include "memory/ZeroedPages.h"

#include <new>

#include <sys/mman.h>

namespace tessera::sim {

ZeroedPages::ZeroedPages(size_t bytes) {
  if (bytes == 0)
    return;
  void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED)
    throw std::bad_alloc();
  data_ = static_cast<std::byte *>(mapped);
  bytes_ = bytes;
}

ZeroedPages::~ZeroedPages() {
  if (data_)
    munmap(data_, bytes_);
}

} // namespace tessera::sim
