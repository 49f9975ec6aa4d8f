// Reading results back: the JSON reader, results.json read into a RunReport and written again
// unchanged (what `rkt compare` and `rkt merge` rely on), and the --shard syntax.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "framework/base/json_text.h"
#include "framework/runs/run_folder.h"
#include "framework/runs/run_merge.h"
#include "framework/runs/run_sharding.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(JsonReader, ReadsValuesAndKeepsNumbersAsWritten) {
  const JsonValue value = parse_json(
      R"( {"seed": 18446744073709551615, "list": [1.5e-3, -2, true, null, "a\"b\u00e9\n"],)"
      R"( "empty": {}, "none": []} )");
  ASSERT_EQ(value.kind, JsonValue::Kind::object);
  EXPECT_EQ(value.find("seed")->text, "18446744073709551615");  // Beyond double's exact range.
  const JsonValue& list = *value.find("list");
  ASSERT_EQ(list.items.size(), 5u);
  EXPECT_EQ(list.items[0].text, "1.5e-3");
  EXPECT_EQ(list.items[1].text, "-2");
  EXPECT_TRUE(list.items[2].boolean);
  EXPECT_EQ(list.items[3].kind, JsonValue::Kind::null);
  EXPECT_EQ(list.items[4].text, "a\"b\xc3\xa9\n");
  EXPECT_EQ(value.find("empty")->kind, JsonValue::Kind::object);
  EXPECT_EQ(value.find("missing"), nullptr);
}

TEST(JsonReader, NamesWhereTheTextIsMalformed) {
  EXPECT_EQ(error_of([] { parse_json("{\"a\": 1,\n \"b\" 2}"); }),
            "line 2, column 6: expected ':' after member name \"b\"");
  EXPECT_EQ(error_of([] { parse_json("[1, 2"); }), "line 1, column 6: expected ',' or ']'");
  EXPECT_EQ(error_of([] { parse_json("{\"a\": tru}"); }), "line 1, column 7: unexpected character");
  EXPECT_EQ(error_of([] { parse_json("\"open"); }), "line 1, column 6: unterminated string");
  EXPECT_EQ(error_of([] { parse_json("{} {}"); }), "line 1, column 4: unexpected text after the JSON value");
  EXPECT_EQ(error_of([] { parse_json("[1.2.3]"); }), "line 1, column 2: malformed number '1.2.3'");
  EXPECT_THAT(error_of([] { parse_json(std::string(100, '[')); }), HasSubstr("nested deeper"));
}

std::string golden_results() {
  std::ifstream file(std::string(RKT_GOLDEN_DIRECTORY) + "/results.json");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(RunFolder, ReadsResultsBackIntoTheReportThatWroteThem) {
  const std::string golden = golden_results();
  ASSERT_FALSE(golden.empty());
  const RunReport report = read_run_results(std::string(RKT_GOLDEN_DIRECTORY) + "/results.json");
  EXPECT_EQ(report.kernels.size(), 6u);
  EXPECT_EQ(results_json(report), golden);
  // The shard fields travel too.
  RunReport shard = report;
  shard.shard_index = 2;
  shard.shard_count = 3;
  shard.selected_kernels = 17;
  const std::string path = ::testing::TempDir() + "rkt_shard_results.json";
  std::ofstream(path) << results_json(shard);
  const RunReport read = read_run_results(path);
  EXPECT_EQ(read.shard_index, 2);
  EXPECT_EQ(read.shard_count, 3);
  EXPECT_EQ(read.selected_kernels, 17);
  EXPECT_EQ(results_json(read), results_json(shard));
}

TEST(RunFolder, NamesTheFileAndTheFieldThatIsWrong) {
  const std::string path = ::testing::TempDir() + "rkt_bad_results.json";
  const auto read_text = [&path](const std::string& text) {
    std::ofstream(path) << text;
    return error_of([&path] { read_run_results(path); });
  };
  std::string golden = golden_results();
  EXPECT_EQ(read_text(golden.substr(0, golden.find("\"seed\""))),
            "'" + path + "': line 4, column 3: expected a member name in quotes");
  std::string no_time = golden;
  no_time.replace(no_time.find("\"time\": {"), 8, "\"tune\": ");
  EXPECT_EQ(read_text(no_time), "'" + path + "': field 'kernels[0].benchmark.time' is missing");
  std::string text_seed = golden;
  text_seed.replace(text_seed.find("\"seed\": 42"), 10, "\"seed\": \"42\"");
  EXPECT_EQ(read_text(text_seed), "'" + path + "': field 'seed' has the wrong type");
  EXPECT_EQ(read_text(""), "'" + path + "' is empty or cannot be read");
  EXPECT_THAT(error_of([] { read_run_results("/nonexistent/run"); }),
              HasSubstr("'/nonexistent/run' does not exist"));
}

// The golden run cut into `count` shards the way --shard cuts a run (sorted ids, round-robin).
std::vector<RunReport> golden_shards(int count) {
  RunReport whole = read_run_results(std::string(RKT_GOLDEN_DIRECTORY) + "/results.json");
  std::sort(whole.kernels.begin(), whole.kernels.end(),
            [](const KernelReport& a, const KernelReport& b) { return a.full_id() < b.full_id(); });
  std::vector<RunReport> shards(count, whole);
  for (int i = 0; i < count; ++i) {
    shards[i].kernels.clear();
    shards[i].shard_index = i + 1;
    shards[i].shard_count = count;
    shards[i].selected_kernels = static_cast<int>(whole.kernels.size());
  }
  for (std::size_t p = 0; p < whole.kernels.size(); ++p) {
    shards[p % count].kernels.push_back(whole.kernels[p]);
  }
  return shards;
}

TEST(MergeShards, RebuildsTheWholeRunFromItsShards) {
  RunReport whole = read_run_results(std::string(RKT_GOLDEN_DIRECTORY) + "/results.json");
  std::sort(whole.kernels.begin(), whole.kernels.end(),
            [](const KernelReport& a, const KernelReport& b) { return a.full_id() < b.full_id(); });
  std::vector<RunReport> shards = golden_shards(4);
  std::swap(shards[0], shards[2]);  // The command line's order does not matter.
  RunReport merged = merge_shards(shards, {"a", "b", "c", "d"});
  EXPECT_EQ(merged.merged_shards, 4);
  EXPECT_EQ(merged.shard_count, 0);
  merged.merged_shards = 0;
  EXPECT_EQ(results_json(merged), results_json(whole));
  EXPECT_EQ(report_markdown(merged), report_markdown(whole));
}

TEST(MergeShards, RefusesWhatWouldMakeTheReportLie) {
  const auto refusal = [](std::vector<RunReport> shards) {
    std::vector<std::string> labels;
    for (std::size_t s = 0; s < shards.size(); ++s) labels.push_back("run" + std::to_string(s + 1));
    return error_of([&] { merge_shards(shards, labels); });
  };
  EXPECT_EQ(refusal({}), "no shards to merge");
  std::vector<RunReport> shards = golden_shards(3);
  EXPECT_EQ(refusal({shards[0], shards[2]}), "shards missing: 2/3");
  EXPECT_EQ(refusal({shards[0], shards[1], shards[1], shards[2]}),
            "shard 2/3 is given twice: run2 and run3");
  std::vector<RunReport> reseeded = shards;
  reseeded[1].seed = 43;
  EXPECT_EQ(refusal(reseeded), "the shards are not of one run: the seed is '42' in run1 but '43' in run2");
  std::vector<RunReport> unfinished = shards;
  unfinished[2].finished = false;
  EXPECT_THAT(refusal(unfinished), HasSubstr("run3 did not finish"));
  std::vector<RunReport> overlapping = shards;
  overlapping[1].kernels.push_back(shards[0].kernels[0]);
  EXPECT_EQ(refusal(overlapping), "kernel " + shards[0].kernels[0].full_id() +
                                      " on cuda is in two shards: run1 and run2");
  std::vector<RunReport> short_one = shards;
  short_one[2].kernels.pop_back();
  EXPECT_EQ(refusal(short_one),
            "the shards hold 5 kernels but the run selected 6 (shards of different builds?)");
  std::vector<RunReport> other_gpu = shards;
  other_gpu[1].peaks["cuda"].device_name = "Other GPU";
  EXPECT_THAT(refusal(other_gpu), HasSubstr("measured cuda kernels on different devices"));
  std::vector<RunReport> in_process = shards;
  in_process[2].isolation = "in-process (debugging)";
  EXPECT_THAT(refusal(in_process), HasSubstr("the isolation mode is 'isolated' in run1 but 'in-process'"));
  RunReport unsharded = shards[0];
  unsharded.shard_count = 0;
  EXPECT_EQ(refusal({unsharded}), "run1 is not a shard (it was not run with --shard I/N)");
}

TEST(Sharding, ParsesIOfNAndNamesWhatIsWrong) {
  const ShardSpec shard = parse_shard("2/5");
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 5);
  EXPECT_EQ(shard.label(), "2/5");
  EXPECT_EQ(parse_shard("1/1").count, 1);
  EXPECT_THAT(error_of([] { parse_shard("0/2"); }), HasSubstr("shards count from 1"));
  EXPECT_THAT(error_of([] { parse_shard("3/2"); }), HasSubstr("I is larger than N"));
  EXPECT_THAT(error_of([] { parse_shard("x/y"); }), HasSubstr("I and N must be whole numbers"));
  EXPECT_THAT(error_of([] { parse_shard("1/0"); }), HasSubstr("N must be at least 1"));
  EXPECT_THAT(error_of([] { parse_shard("2"); }), HasSubstr("no '/'"));
  EXPECT_THAT(error_of([] { parse_shard(" 1/2"); }), HasSubstr("not ' 1/2'"));
}

}  // namespace
}  // namespace rkt
