// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "planner_registry.h"

#include <algorithm>
#include <vector>

#include "linebloom/foundation/mutex.h"

namespace linebloom::rocksdb_plugin {
namespace {

using planner::LevelPlanner;

struct Registry {
  Mutex mutex;
  std::vector<std::weak_ptr<LevelPlanner>> planners LINEBLOOM_GUARDED_BY(mutex);
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

// The registered planners still alive. The caller asks them outside the
// registry's lock.
std::vector<std::shared_ptr<LevelPlanner>> AlivePlanners() {
  std::vector<std::shared_ptr<LevelPlanner>> alive;
  Registry& registry = TheRegistry();
  MutexLock lock(&registry.mutex);
  for (const std::weak_ptr<LevelPlanner>& weak : registry.planners) {
    if (std::shared_ptr<LevelPlanner> planner = weak.lock()) alive.push_back(std::move(planner));
  }
  return alive;
}

}  // namespace

void RegisterPlanner(const std::shared_ptr<LevelPlanner>& planner) {
  Registry& registry = TheRegistry();
  MutexLock lock(&registry.mutex);
  std::erase_if(registry.planners, [](const std::weak_ptr<LevelPlanner>& p) { return p.expired(); });
  registry.planners.push_back(planner);
}

bool AnyPlannerBuildsFor(const std::string& column_family) {
  const std::vector<std::shared_ptr<LevelPlanner>> alive = AlivePlanners();
  return std::any_of(alive.begin(), alive.end(),
                     [&](const std::shared_ptr<LevelPlanner>& planner) { return planner->BuildsFor(column_family); });
}

std::shared_ptr<LevelPlanner> PlannerRecording(const std::string& column_family,
                                               std::span<const planner::TrackedFile> files) {
  std::shared_ptr<LevelPlanner> owner;
  for (std::shared_ptr<LevelPlanner>& planner : AlivePlanners()) {
    if (!planner->RecordsAnyOf(column_family, files)) continue;
    if (owner != nullptr) return nullptr;
    owner = std::move(planner);
  }
  return owner;
}

}  // namespace linebloom::rocksdb_plugin
