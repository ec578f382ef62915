// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_line_forms.h"

#include <algorithm>
#include <array>

#include "compact_layout.h"

namespace linebloom::internal::compact {
namespace {

// Form f: base r (f < 8) or low_r, plus e extra planes for f % 8 >= 4:
// min(4 - f % 4, E(base)) from version 5 on, else 1 (docs/FORMAT.md).
constexpr LineForms MakeForms(int r, int low_r, bool many_planes) {
  LineForms forms{};
  for (int form = 0; form < 16; ++form) {
    const int base = form < 8 ? r : low_r;
    const int extra = form % 8 < 4 ? 0 : many_planes ? std::min(4 - form % 4, MaxExtraPlanes(base)) : 1;
    const int columns = ColumnsFor(base + extra);
    forms.planes[form] = static_cast<uint8_t>(base + extra);
    forms.columns[form] = static_cast<uint8_t>(columns);
    forms.mask[form][0] = LowMask(columns).lo;
    forms.mask[form][1] = LowMask(columns).hi;
  }
  return forms;
}

// Per r: one extra plane, several, several and mixed.
constexpr int kKinds = 3;
inline constexpr auto kForms = [] {
  std::array<std::array<LineForms, kKinds>, kMaxFingerprintBits + 1> all{};
  for (int r = kMinFingerprintBits; r <= kMaxFingerprintBits; ++r) {
    all[r][0] = MakeForms(r, r, false);
    all[r][1] = MakeForms(r, r, true);
    all[r][2] = MakeForms(r, std::max(r - 1, kMinFingerprintBits), true);
  }
  return all;
}();

}  // namespace

const LineForms* LineFormsFor(int r, bool mixed, bool many_planes) {
  const int kind = mixed ? 2 : many_planes ? 1 : 0;
  return &kForms[static_cast<size_t>(std::clamp(r, kMinFingerprintBits, kMaxFingerprintBits))][kind];
}

}  // namespace linebloom::internal::compact
