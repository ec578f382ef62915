// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "huge_pages.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace linebloom::internal {

static bool DetectHugePages() {
  const char* forced = std::getenv("LINEBLOOM_HUGE_PAGES");
  if (forced != nullptr && std::strcmp(forced, "0") == 0) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // The active mode is the bracketed word: "always [madvise] never".
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode_file, modes);
  return modes.find("[always]") != std::string::npos || modes.find("[madvise]") != std::string::npos;
#else
  return false;
#endif
}

bool HugePagesEnabled() {
  static const bool enabled = DetectHugePages();
  return enabled;
}

bool CollapseHugePages(const void* data, size_t size) {
#if defined(__linux__)
  // MADV_COLLAPSE's value in Linux's UAPI <asm-generic/mman-common.h>, for C
  // libraries whose headers predate it; older kernels answer EINVAL.
  constexpr int kMadviseCollapse = 25;
  if (!HugePagesEnabled()) return false;
  const HugePageRange pages = WholeHugePages(data, size);
  if (pages.end <= pages.begin) return false;
  return madvise(reinterpret_cast<void*>(pages.begin), pages.end - pages.begin, kMadviseCollapse) == 0;
#else
  (void)data;
  (void)size;
  return false;
#endif
}

}  // namespace linebloom::internal
