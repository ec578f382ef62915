// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/linebloom_filter_policy.h"

#include <atomic>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <rocksdb/table.h>
#include <rocksdb/utilities/options_type.h>

#include "bits_builder.h"
#include "bits_readers.h"
#include "compact_bits_builder.h"
#include "level_aware_adapter.h"
#include "planner_registry.h"
#include "linebloom/bloom_math.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "linebloom/foundation/mutex.h"
#include "linebloom/planner/level_planner.h"
#include "linebloom/planner/planner_options.h"

namespace linebloom::rocksdb_plugin {

using ::rocksdb::InfoLogLevel;
using ::rocksdb::OptionType;
using ::rocksdb::OptionTypeFlags;
using ::rocksdb::OptionTypeInfo;
using ::rocksdb::OptionVerificationType;

struct LinebloomFilterPolicy::Diagnostics {
  Mutex mutex;
  std::shared_ptr<::rocksdb::Logger> info_log LINEBLOOM_GUARDED_BY(mutex);
  std::string last_reason LINEBLOOM_GUARDED_BY(mutex);
  std::string configuration_error LINEBLOOM_GUARDED_BY(mutex);
  std::atomic<uint64_t> num_malformed{0};
  std::atomic<uint64_t> num_compact_fallbacks{0};
  // Bit e is set once ParseError e has been reported.
  std::atomic<uint32_t> reported_errors{0};
  std::atomic<bool> warned_memory_option{false};
};

// Made on first use, because RocksDB sets options after construction
// (ConfigureFromString); options are fixed once the policy builds filters.
struct LinebloomFilterPolicy::LazyPlanner {
  std::once_flag once;
  std::shared_ptr<planner::LevelPlanner> planner;
};

struct LinebloomFilterPolicy::LazyCompactBits {
  std::once_flag once;
  double bits_per_key = 0;
};

namespace {

const std::unordered_map<std::string, OptionTypeInfo>& OptionsTypeInfo() {
  static const std::unordered_map<std::string, OptionTypeInfo> kInfo = {
      {"bits_per_key",
       {offsetof(LinebloomPolicyOptions, bits_per_key), OptionType::kDouble, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"num_probes",
       {offsetof(LinebloomPolicyOptions, num_probes), OptionType::kInt, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"verify_checksum",
       {offsetof(LinebloomPolicyOptions, verify_checksum), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"align_blocks",
       {offsetof(LinebloomPolicyOptions, align_blocks), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"level_aware",
       {offsetof(LinebloomPolicyOptions, level_aware), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"size_ratio",
       {offsetof(LinebloomPolicyOptions, size_ratio), OptionType::kDouble, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"cache_aware",
       {offsetof(LinebloomPolicyOptions, cache_aware), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"block_cache_bytes",
       {offsetof(LinebloomPolicyOptions, block_cache_bytes), OptionType::kDouble, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"data_bytes_per_key",
       {offsetof(LinebloomPolicyOptions, data_bytes_per_key), OptionType::kDouble, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"level_weights",
       {offsetof(LinebloomPolicyOptions, level_weights), OptionType::kString, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"compact_from_level",
       {offsetof(LinebloomPolicyOptions, compact_from_level), OptionType::kInt, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"compact_bottommost",
       {offsetof(LinebloomPolicyOptions, compact_bottommost), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"compact_extra_planes",
       {offsetof(LinebloomPolicyOptions, compact_extra_planes), OptionType::kInt, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"compact_mixed",
       {offsetof(LinebloomPolicyOptions, compact_mixed), OptionType::kBoolean, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
      {"hash_scheme",
       {offsetof(LinebloomPolicyOptions, hash_scheme), OptionType::kInt, OptionVerificationType::kNormal,
        OptionTypeFlags::kNone}},
  };
  return kInfo;
}

// Writes `message` to `logger` at `level`, or to stderr without one.
void Emit(::rocksdb::Logger* logger, InfoLogLevel level, const std::string& message) {
  if (logger != nullptr) {
    ::rocksdb::Log(level, logger, "%s", message.c_str());
  } else {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
}

}  // namespace

LinebloomFilterPolicy::LinebloomFilterPolicy(const LinebloomPolicyOptions& options)
    : options_(options),
      diagnostics_(std::make_unique<Diagnostics>()),
      planner_(std::make_unique<LazyPlanner>()),
      compact_bits_(std::make_unique<LazyCompactBits>()) {
  RegisterOptions(&options_, &OptionsTypeInfo());
}

LinebloomFilterPolicy::~LinebloomFilterPolicy() = default;

::rocksdb::Status LinebloomFilterPolicy::ConfigureOptions(const ::rocksdb::ConfigOptions& config_options,
                                                          const std::unordered_map<std::string, std::string>& opts_map,
                                                          std::unordered_map<std::string, std::string>* unused) {
  const ::rocksdb::Status s = FilterPolicy::ConfigureOptions(config_options, opts_map, unused);
  std::string problem;
  if (!s.ok()) {
    problem = s.ToString();
  } else if (unused != nullptr && !unused->empty()) {
    problem = "unknown option(s):";
    for (const auto& [name, value] : *unused) problem.append(" ").append(name).append("=").append(value);
  }
  if (problem.empty()) return s;
  const bool refused = !s.ok() || !config_options.ignore_unknown_options;
  const std::string message = "linebloom: bad filter_policy option string (" + problem + ")" +
                              (refused ? "; DB::Open with this policy fails" : "; ignored (ignore_unknown_options)");
  if (refused) {
    MutexLock lock(&diagnostics_->mutex);
    diagnostics_->configuration_error = message;
  }
  Emit(nullptr, InfoLogLevel::WARN_LEVEL, message);
  return s;
}

::rocksdb::Status LinebloomFilterPolicy::ValidateOptions(const ::rocksdb::DBOptions& db_opts,
                                                         const ::rocksdb::ColumnFamilyOptions& cf_opts) const {
  {
    MutexLock lock(&diagnostics_->mutex);
    if (!diagnostics_->configuration_error.empty()) {
      return ::rocksdb::Status::InvalidArgument(diagnostics_->configuration_error);
    }
  }
  const double c = options_.bits_per_key;
  if (!(c >= kMinBitsPerKey && c <= kMaxBitsPerKey)) {
    return ::rocksdb::Status::InvalidArgument("linebloom: bits_per_key must be in [1, 100], got ", std::to_string(c));
  }
  if (options_.num_probes < 0 || options_.num_probes > kMaxProbes) {
    return ::rocksdb::Status::InvalidArgument("linebloom: num_probes must be 0 (automatic) or in [1, 24], got ",
                                              std::to_string(options_.num_probes));
  }
  if (!(options_.size_ratio >= 1.5 && options_.size_ratio <= 100)) {
    return ::rocksdb::Status::InvalidArgument("linebloom: size_ratio must be in [1.5, 100], got ",
                                              std::to_string(options_.size_ratio));
  }
  if (!(options_.block_cache_bytes >= 0) || !(options_.data_bytes_per_key >= 0)) {
    return ::rocksdb::Status::InvalidArgument("linebloom: block_cache_bytes and data_bytes_per_key must be >= 0");
  }
  if (options_.compact_from_level < -1) {
    return ::rocksdb::Status::InvalidArgument("linebloom: compact_from_level must be >= -1, got ",
                                              std::to_string(options_.compact_from_level));
  }
  if (options_.hash_scheme != static_cast<int>(KeyHashScheme::kXxh3) &&
      options_.hash_scheme != static_cast<int>(KeyHashScheme::kShortKeyMultiply)) {
    return ::rocksdb::Status::InvalidArgument("linebloom: hash_scheme must be 1 or 3, got ",
                                              std::to_string(options_.hash_scheme));
  }
  if (!planner::ParseLevelWeights(options_.level_weights)) {
    return ::rocksdb::Status::InvalidArgument(
        "linebloom: level_weights must be ':'-separated numbers in [0, 1] (L0 first), got ", options_.level_weights);
  }
  return FilterPolicy::ValidateOptions(db_opts, cf_opts);
}

void LinebloomFilterPolicy::WarnOnceAboutContext(const ::rocksdb::FilterBuildingContext& context) const {
  const auto& table = context.table_options;
  ::rocksdb::Logger* logger = context.info_log;
  // optimize_filters_for_memory: RocksDB's built-in filters then size each
  // filter to the allocator's usable size; linebloom filters keep their
  // exact size (docs/ROCKSDB.md says why). RocksDB turns the option on by
  // default from 9.2, so only a value that differs from the release's
  // default is the user's request, and only that is warned about.
  static const bool kOptimizeForMemoryByDefault = ::rocksdb::BlockBasedTableOptions().optimize_filters_for_memory;
  if (table.optimize_filters_for_memory && !kOptimizeForMemoryByDefault &&
      !diagnostics_->warned_memory_option.exchange(true)) {
    Emit(logger, InfoLogLevel::WARN_LEVEL,
         "linebloom: optimize_filters_for_memory has no effect on linebloom "
         "filters (they are not resized to allocator size classes)");
  }
}

::rocksdb::FilterBitsBuilder* LinebloomFilterPolicy::GetBuilderWithContext(
    const ::rocksdb::FilterBuildingContext& context) const {
  WarnOnceAboutContext(context);
  const std::optional<FilterOptions> filter_options = PlanNewFileFilter(context);
  if (!filter_options) return nullptr;  // RocksDB writes the SST without a filter
  const bool post_verify = context.table_options.detect_filter_construct_corruption;
  if (NewFileFilterKind(context) == FilterKind::kCompact) {
    ::rocksdb::Logger* info_log = context.info_log;  // the DB's: outlives the builder
    auto builder = std::make_unique<CompactBitsBuilder>(
        *filter_options, post_verify,
        [this, info_log](const std::string& reason) { ReportCompactFallback(info_log, reason); },
        ReadMemory{options_.align_blocks, context.table_options.block_cache});
    if (ChargesFilterConstruction(context.table_options)) builder->ChargeMemoryTo(context.table_options.block_cache);
    builder->SetExtraPlanes(options_.compact_extra_planes);
    builder->SetMixed(options_.compact_mixed);
    if (!options_.level_aware) return builder.release();
    return ObserveFilters(level_planner(), context, std::move(builder)).release();
  }
  FilterOptions bloom_options = *filter_options;
  // An unvalidated setting other than 1 or 3 (a policy made in code and
  // never validated) writes scheme 1, which every reader reads.
  bloom_options.hash_scheme = options_.hash_scheme == static_cast<int>(KeyHashScheme::kShortKeyMultiply)
                                  ? KeyHashScheme::kShortKeyMultiply
                                  : KeyHashScheme::kXxh3;
  auto builder = std::make_unique<LinebloomBitsBuilder>(
      bloom_options, post_verify, ReadMemory{options_.align_blocks, context.table_options.block_cache});
  if (ChargesFilterConstruction(context.table_options)) builder->ChargeMemoryTo(context.table_options.block_cache);
  if (!options_.level_aware) return builder.release();
  // Level-aware: the builder reports each filter's key range to the planner
  // (docs/LEVEL_AWARE.md).
  return ObserveFilters(level_planner(), context, std::move(builder)).release();
}

// The level as RocksDB's RibbonFilterPolicy::GetBuilderWithContext counts it
// for bloom_before_level: under leveled or universal compaction a flush is
// -1 and a file of known level its level; a file of unknown level
// (level_at_creation -1 outside a flush: SstFileWriter, whose files are
// usually ingested at the bottom) and every file under FIFO or no
// compaction count as the bottom, INT_MAX - 1, so that INT_MAX alone means
// "never".
FilterKind LinebloomFilterPolicy::NewFileFilterKind(const ::rocksdb::FilterBuildingContext& context) const {
  if (options_.compact_bottommost && context.is_bottommost) return FilterKind::kCompact;
  if (options_.compact_from_level == LinebloomPolicyOptions::kNeverCompact) return FilterKind::kBloom;
  int levelish = INT_MAX - 1;
  if (context.compaction_style == ::rocksdb::kCompactionStyleLevel ||
      context.compaction_style == ::rocksdb::kCompactionStyleUniversal) {
    if (context.reason == ::rocksdb::TableFileCreationReason::kFlush) {
      levelish = -1;
    } else if (context.level_at_creation >= 0) {
      levelish = context.level_at_creation;
    }
  }
  return levelish >= options_.compact_from_level ? FilterKind::kCompact : FilterKind::kBloom;
}

double LinebloomFilterPolicy::CompactBitsPerKey() const {
  LazyCompactBits& lazy = *compact_bits_;
  std::call_once(lazy.once, [&] {
    FilterOptions bloom;
    bloom.bits_per_key = options_.bits_per_key;
    bloom.num_probes = options_.num_probes;
    const double c = bloom.EffectiveBitsPerKey();
    // The compact model's rate no longer depends on the key count beyond
    // 2^16 keys (compact_math.cc), nor the Bloom filter's beyond a few
    // blocks: one setting serves every file.
    // The model of the lines this policy writes (compact_extra_planes,
    // compact_mixed).
    lazy.bits_per_key = CompactBitsPerKeyFor(BlockedFpr(c, bloom.EffectiveProbes()), size_t{1} << 16,
                                             options_.compact_extra_planes, options_.compact_mixed);
  });
  return lazy.bits_per_key;
}

void LinebloomFilterPolicy::ReportCompactFallback(::rocksdb::Logger* info_log, const std::string& reason) const {
  diagnostics_->num_compact_fallbacks.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<::rocksdb::Logger> policy_log;
  if (info_log == nullptr) {
    MutexLock lock(&diagnostics_->mutex);
    policy_log = diagnostics_->info_log;
    info_log = policy_log.get();
  }
  Emit(info_log, InfoLogLevel::WARN_LEVEL, "linebloom: " + reason + " (same bits per key; the SST reads as usual)");
}

std::shared_ptr<planner::LevelPlanner> LinebloomFilterPolicy::level_planner() const {
  if (!options_.level_aware) return nullptr;
  LazyPlanner& lazy = *planner_;
  std::call_once(lazy.once, [&] {
    planner::PlannerOptions planner_options;
    planner_options.average_bits_per_key = options_.bits_per_key;
    planner_options.num_probes = options_.num_probes;
    planner_options.size_ratio = options_.size_ratio;
    // The planner prices each level with the kind its files get: levels
    // from compact_from_level (flushes, level -1 to RocksDB, are L0's files
    // here) and, with compact_bottommost, the deepest.
    planner_options.compact_from_level = options_.compact_from_level;
    planner_options.compact_deepest = options_.compact_bottommost;
    planner_options.cache.enabled = options_.cache_aware || options_.block_cache_bytes > 0;
    planner_options.cache.block_cache_bytes = options_.block_cache_bytes;
    planner_options.cache.data_bytes_per_key = options_.data_bytes_per_key;
    planner_options.cache.level_weights =
        planner::ParseLevelWeights(options_.level_weights).value_or(std::vector<double>{});
    lazy.planner = std::make_shared<planner::LevelPlanner>(std::move(planner_options));
    RegisterPlanner(lazy.planner);
  });
  return lazy.planner;
}

void LinebloomFilterPolicy::SyncLiveFiles(const std::string& column_family, std::span<const LiveSstFile> files) const {
  if (options_.level_aware) level_planner()->SyncLiveFiles(column_family, files);
}

std::vector<LiveSstFile> LinebloomFilterPolicy::RecordedLiveFiles(const std::string& column_family) const {
  if (!options_.level_aware) return {};
  return level_planner()->RecordedLiveFiles(column_family);
}

std::optional<FilterOptions> LinebloomFilterPolicy::PlanNewFileFilter(
    const ::rocksdb::FilterBuildingContext& context) const {
  if (options_.level_aware) return PlanFromContext(*level_planner(), context);
  FilterOptions filter_options;
  filter_options.bits_per_key =
      NewFileFilterKind(context) == FilterKind::kCompact ? CompactBitsPerKey() : options_.bits_per_key;
  filter_options.num_probes = options_.num_probes;
  return filter_options;
}

::rocksdb::FilterBitsReader* LinebloomFilterPolicy::GetFilterBitsReader(const ::rocksdb::Slice& contents) const {
  const std::string_view bytes(contents.data(), contents.size());
  const ParseOptions parse_options{.verify_checksum = options_.verify_checksum};
  if (DetectFilterKind(bytes) == FilterKind::kCompact) {
    CompactFilterReader compact;
    const ParseResult parsed = CompactFilterReader::Parse(bytes, &compact, parse_options);
    if (!parsed.ok()) return MalformedFilterReader(contents.size(), ", compact kind", parsed);
    if (compact.num_layers() == 0) return new EmptyFilterBitsReader();
    return NewCompactBitsReader(compact, bytes);
  }
  FilterReader reader;
  const ParseResult parsed = FilterReader::Parse(bytes, &reader, parse_options);
  if (!parsed.ok()) return MalformedFilterReader(contents.size(), "", parsed);
  if (reader.num_blocks() == 0) {
    return new EmptyFilterBitsReader();
  }
  return NewLinebloomBitsReader(reader);
}

// Counts and reports (once per kind of problem) a filter block that did not
// parse, and answers "may match" for it. `kind` is "" for a Bloom filter
// block (or bytes of no known kind) and ", compact kind" for a compact one.
::rocksdb::FilterBitsReader* LinebloomFilterPolicy::MalformedFilterReader(size_t size, const char* kind,
                                                                          ParseResult parsed) const {
  const std::string reason = std::string("linebloom: ignoring a malformed filter block (")
                                 .append(std::to_string(size))
                                 .append(" bytes")
                                 .append(kind)
                                 .append("): ")
                                 .append(parsed.message())
                                 .append("; lookups it covers will read data blocks instead");
  Diagnostics& d = *diagnostics_;
  d.num_malformed.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<::rocksdb::Logger> logger;
  {
    MutexLock lock(&d.mutex);
    d.last_reason = reason;
    logger = d.info_log;
  }
  const uint32_t bit = 1u << (static_cast<unsigned>(parsed.error) & 31u);
  if ((d.reported_errors.fetch_or(bit) & bit) == 0) {
    Emit(logger.get(), InfoLogLevel::ERROR_LEVEL, reason);
  }
  return new AlwaysMayMatchBitsReader();
}

void LinebloomFilterPolicy::SetInfoLog(std::shared_ptr<::rocksdb::Logger> info_log) const {
  MutexLock lock(&diagnostics_->mutex);
  diagnostics_->info_log = std::move(info_log);
}

uint64_t LinebloomFilterPolicy::num_malformed_filters() const {
  return diagnostics_->num_malformed.load(std::memory_order_relaxed);
}

std::string LinebloomFilterPolicy::last_malformed_reason() const {
  MutexLock lock(&diagnostics_->mutex);
  return diagnostics_->last_reason;
}

uint64_t LinebloomFilterPolicy::num_compact_fallbacks() const {
  return diagnostics_->num_compact_fallbacks.load(std::memory_order_relaxed);
}

std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(double bits_per_key) {
  LinebloomPolicyOptions options;
  options.bits_per_key = bits_per_key;
  return NewLinebloomFilterPolicy(options);
}

std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(double bits_per_key, int compact_from_level) {
  LinebloomPolicyOptions options;
  options.bits_per_key = bits_per_key;
  options.compact_from_level = compact_from_level;
  return NewLinebloomFilterPolicy(options);
}

std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(const LinebloomPolicyOptions& options) {
  return std::make_shared<LinebloomFilterPolicy>(options);
}

}  // namespace linebloom::rocksdb_plugin
