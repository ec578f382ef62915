// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace linebloom::bench {
namespace {

TEST(BinomialSd, Formula) {
  EXPECT_DOUBLE_EQ(BinomialSd(0.01, 10000), std::sqrt(0.01 * 0.99 / 10000));
  EXPECT_EQ(BinomialSd(0.5, 0), 0);
  const FprCount c{.positives = 100, .queries = 10000};
  EXPECT_DOUBLE_EQ(c.Rate(), 0.01);
  EXPECT_DOUBLE_EQ(c.Sd(), BinomialSd(0.01, 10000));
  EXPECT_EQ(FprCount{}.Rate(), 0);
}

TEST(WithinSds, UsesTheModelsDeviation) {
  // Model 1 % over 10^4 queries: sd 0.0995 %, so 2 sd is 0.199 %.
  EXPECT_TRUE(WithinSds(0.0119, 0.01, 10000, 2));
  EXPECT_TRUE(WithinSds(0.0081, 0.01, 10000, 2));
  EXPECT_FALSE(WithinSds(0.0121, 0.01, 10000, 2));
  EXPECT_FALSE(WithinSds(0.0079, 0.01, 10000, 2));
}

TEST(BitsAtFpr, LogLinearBetweenTheBracketingPoints) {
  // Rate halves per bit: 10 bits 1 %, 11 bits 0.5 %, 12 bits 0.25 %.
  const std::vector<BitsFprPoint> points = {{12, 0.0025}, {10, 0.01}, {11, 0.005}};
  BitsAtFprResult r = BitsAtFpr(points, 0.01 / std::sqrt(2.0));
  EXPECT_TRUE(r.bracketed);
  EXPECT_NEAR(r.bits_per_key, 10.5, 1e-12);
  r = BitsAtFpr(points, 0.0025 * std::sqrt(2.0));
  EXPECT_TRUE(r.bracketed);
  EXPECT_NEAR(r.bits_per_key, 11.5, 1e-12);
  r = BitsAtFpr(points, 0.005);
  EXPECT_TRUE(r.bracketed);
  EXPECT_NEAR(r.bits_per_key, 11, 1e-12);
}

TEST(BitsAtFpr, ExtrapolatesOutsideAndNeedsTwoRates) {
  const std::vector<BitsFprPoint> points = {{10, 0.01}, {11, 0.005}};
  BitsAtFprResult r = BitsAtFpr(points, 0.02);
  EXPECT_FALSE(r.bracketed);
  EXPECT_NEAR(r.bits_per_key, 9, 1e-12);
  r = BitsAtFpr(points, 0.00125);
  EXPECT_FALSE(r.bracketed);
  EXPECT_NEAR(r.bits_per_key, 13, 1e-12);
  EXPECT_TRUE(std::isnan(BitsAtFpr({{10, 0.01}}, 0.01).bits_per_key));
  EXPECT_TRUE(std::isnan(BitsAtFpr({{10, 0.01}, {11, 0}}, 0.01).bits_per_key));
  EXPECT_TRUE(std::isnan(BitsAtFpr(points, 0).bits_per_key));
}

BuildCell Cell(const std::string& filter, size_t bytes, uint64_t positives, std::vector<double> build_ns) {
  BuildCell c;
  c.filter = filter;
  c.target_fpr = 0.01;
  c.keys = 1000;
  c.setting = 10;
  c.bytes = bytes;
  c.fpr = {positives, 100000};
  c.build_ns = std::move(build_ns);
  c.peak_bytes = {8000, 9000};
  return c;
}

QueryCell Query(const std::string& filter, std::vector<double> single_ns, std::vector<double> alone_ns,
                std::vector<double> batch_ns) {
  QueryCell q;
  q.filter = filter;
  q.size_mb = 1;
  q.keys = 100;
  q.bytes = 4096;
  q.single_ns = std::move(single_ns);
  q.alone_ns = std::move(alone_ns);
  q.batch_ns = std::move(batch_ns);
  return q;
}

CompactReport SampleReport() {
  CompactReport report({.builtin_label = "RocksDB x", .kernel = "k", .key_length = 16, .reps = 2, .batch = 32});
  report.AddBuild(Cell(kCompactBloomName, 1250, 1000, {10, 20}));
  report.AddBuild(Cell(kCompactRibbonName, 1000, 1000, {40, 40}));
  BuildCell compact = Cell("linebloom-compact", 950, 1000, {20, 20});
  compact.model_fpr = 0.0105;
  compact.second_line_share = 0.03;
  report.AddBuild(compact);
  report.AddRibbonPoint(0.01, 1000, {9.0, 0.02});
  report.AddRibbonPoint(0.01, 1000, {11.0, 0.005});
  report.AddQuery(Query(kCompactBloomName, {2, 4}, {10, 20}, {1, 1}));
  report.AddQuery(Query("linebloom-compact", {3, 6}, {11, 30}, {2, 3}));
  return report;
}

std::string Printed(const CompactReport& report) {
  char* buf = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buf, &size);
  report.Print(out);
  std::fclose(out);
  std::string s(buf, size);
  std::free(buf);
  return s;
}

TEST(CompactReport, RibbonBitsAtTheMeasuredRate) {
  const CompactReport report = SampleReport();
  // The Ribbon row measured 1 % at 8 bits/key; its other points 2 % at 9
  // and 0.5 % at 11: 1 % is a point itself.
  EXPECT_NEAR(report.RibbonBitsAt(0.01, 1000, 0.01).bits_per_key, 8, 1e-12);
  EXPECT_NEAR(report.RibbonBitsAt(0.01, 1000, 0.005).bits_per_key, 11, 1e-12);
  EXPECT_TRUE(std::isnan(report.RibbonBitsAt(0.001, 1000, 0.01).bits_per_key));
}

TEST(CompactReport, PrintsRatiosOfTheRepetitions) {
  const std::string s = Printed(SampleReport());
  // Compact build: 20/10 and 20/20 against Bloom, 0.5 twice against Ribbon.
  EXPECT_NE(s.find("| linebloom-compact | 10.00 | 7.600 | 1.0000 % ± 0.0315 (1000/100000) | 1.0500 % | yes | 0.950 | "
                   "3.00 % | 20.0 | 1.50 (1.00-2.00) | 0.50 (0.50-0.50) | 8.50 |"),
            std::string::npos)
      << s;
  // Single queries 3/2 and 6/4 against Bloom; alone 11/10 and 30/20;
  // batches 2/1 and 3/1; no Ribbon row.
  EXPECT_NE(
      s.find("| linebloom-compact | 100 | 0.00 | 4.5 | 1.50 (1.50-1.50) | - | 20.5 | 1.30 (1.10-1.50) | - | 2.5 | "
             "2.50 (2.00-3.00) | - |"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("Ribbon points for the interpolation (bits/key: measured FPR): 8.000: 1.0000 %; 9.000: 2.0000 %; "
                   "11.000: 0.5000 %;"),
            std::string::npos)
      << s;
}

TEST(CompactReport, ComparesTheCompactRowsWithLinebloomsBloom) {
  CompactReport report = SampleReport();
  EXPECT_EQ(Printed(report).find("Against linebloom"), std::string::npos);
  report.AddQuery(Query(kCompactLinebloomName, {1, 3}, {10, 15}, {1, 2}));
  const std::string s = Printed(report);
  // linebloom-compact: single 3/1 and 6/3, alone 11/10 and 30/15, batches
  // 2/1 and 3/2; the RocksDB rows are not compared.
  EXPECT_NE(s.find("Against linebloom (Bloom):\n\n| filter | single | alone | batch32 |\n|---|---|---|---|\n"
                   "| linebloom-compact | 2.50 (2.00-3.00) | 1.55 (1.10-2.00) | 1.75 (1.50-2.00) |\n"),
            std::string::npos)
      << s;
}

TEST(CompactReport, ReportsAFilterNotBuilt) {
  CompactReport report = SampleReport();
  BuildCell failed = Cell("other", 0, 0, {});
  failed.failure = "fell back to \"Bloom\"";
  report.AddBuild(failed);
  QueryCell q;
  q.filter = "other";
  q.size_mb = 1;
  q.keys = 100;
  q.failure = "fell back";
  report.AddQuery(q);
  const std::string s = Printed(report);
  EXPECT_NE(s.find("| other | 10.00 | not built: fell back to \"Bloom\" |"), std::string::npos) << s;
  EXPECT_NE(s.find("| other | 100 | not built: fell back |"), std::string::npos) << s;
  const std::string path = ::testing::TempDir() + "compact_report_failure_test.json";
  ASSERT_TRUE(report.WriteJson(path));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"failure\": \"fell back to \\\"Bloom\\\"\"}"), std::string::npos) << text.str();
  std::remove(path.c_str());
}

TEST(CompactReport, JsonHasEveryCellAndNullForNoModel) {
  const std::string path = ::testing::TempDir() + "compact_report_test.json";
  ASSERT_TRUE(SampleReport().WriteJson(path));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_NE(s.find("\"filter\": \"rocksdb-bloom\", \"target_fpr\": 0.01, \"keys\": 1000"), std::string::npos) << s;
  EXPECT_NE(s.find("\"model_fpr\": null"), std::string::npos) << s;
  EXPECT_NE(s.find("\"model_fpr\": 0.0105"), std::string::npos) << s;
  EXPECT_NE(s.find("\"single_ns\": [3, 6], \"alone_ns\": [11, 30]"), std::string::npos) << s;
  EXPECT_NE(
      s.find("\"ribbon_points\": [\n  {\"target_fpr\": 0.01, \"keys\": 1000, \"bits_per_key\": 9, \"fpr\": 0.02}"),
      std::string::npos)
      << s;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace linebloom::bench
