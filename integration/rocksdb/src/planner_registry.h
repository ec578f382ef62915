// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The level-aware policies' planners alive in the process, for a listener
// that has no handle of a column family and so cannot read its policy from
// its options (level_aware_listener.cc). Planners are held weakly: one stays
// registered while its policy (or a builder observing for it) lives.
// Thread-safe; the registry's lock is never held together with a planner's.

#pragma once

#include <memory>
#include <span>
#include <string>

#include "linebloom/planner/level_planner.h"

namespace linebloom::rocksdb_plugin {

void RegisterPlanner(const std::shared_ptr<planner::LevelPlanner>& planner);

// The registered planner that records one of `files` live in
// `column_family`, when exactly one does; null when none does, or several
// (column families of the same name in two DBs of the process holding equal
// files): no guess is made.
std::shared_ptr<planner::LevelPlanner> PlannerRecording(const std::string& column_family,
                                                        std::span<const planner::TrackedFile> files);

// Whether a registered planner builds for `column_family` (BuildsFor): if
// none does, a listener need not list the live files.
bool AnyPlannerBuildsFor(const std::string& column_family);

}  // namespace linebloom::rocksdb_plugin
