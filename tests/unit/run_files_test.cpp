// Reading results back: the JSON reader, results.json read into a RunReport and written again
// unchanged (what `rkt compare` and `rkt merge` rely on), and the --shard syntax.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "framework/base/json_fields.h"
#include "framework/runs/run_folder.h"
#include "framework/runs/run_merge.h"
#include "framework/runs/run_sharding.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(JsonReader, ReadsValuesAndKeepsSeedsExact) {
  const JsonDocument document(
      R"( {"seed": 18446744073709551615, "withheld": null, "ratio": 1.5e-3, "count": -2,)"
      R"( "text": "a\"b\u00e9\n", "gap": null, "flag": true, "empty": {}, "names": ["x", "y"],)"
      R"( "dims": {"N": 7, "B": 3}} )");
  const JsonFields top = document.root();
  EXPECT_EQ(top.unsigned_integer_or_null("seed"), 18446744073709551615ull);  // Beyond a double.
  EXPECT_EQ(top.unsigned_integer_or_null("withheld"), std::nullopt);
  EXPECT_DOUBLE_EQ(top.number("ratio"), 1.5e-3);
  EXPECT_EQ(top.integer("count"), -2);
  EXPECT_EQ(top.text("text"), "a\"b\xc3\xa9\n");
  EXPECT_TRUE(std::isnan(top.number("gap")));  // null: a number that could not be computed.
  EXPECT_TRUE(top.flag("flag"));
  EXPECT_TRUE(top.members("empty").empty());
  EXPECT_EQ(top.strings("names"), (std::vector<std::string>{"x", "y"}));
  const auto dims = top.members("dims");  // In file order.
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].first, "N");
  EXPECT_EQ(dims[0].second.as_integer(), 7);
  EXPECT_EQ(dims[1].second.path(), "dims.B");
  EXPECT_TRUE(top.has("gap"));
  EXPECT_TRUE(top.is_null("gap"));
  EXPECT_FALSE(top.has("missing"));
  EXPECT_EQ(top.text_or_empty("missing"), "");
}

TEST(JsonReader, NamesTheFieldThatIsWrong) {
  const auto error_in = [](const std::string& text, const std::function<void(const JsonFields&)>& read) {
    return error_of([&] {
      const JsonDocument document(text);
      read(document.root());
    });
  };
  EXPECT_EQ(error_in(R"({"kernels": [{"benchmark": {}}]})",
                     [](const JsonFields& top) { top.array("kernels")[0].object("benchmark").object("time"); }),
            "field 'kernels[0].benchmark.time' is missing");
  EXPECT_EQ(error_in(R"({"seed": "42"})", [](const JsonFields& top) { top.number("seed"); }),
            "field 'seed' has the wrong type");
  EXPECT_EQ(error_in(R"({"seed": -1})", [](const JsonFields& top) { top.unsigned_integer_or_null("seed"); }),
            "field 'seed' is not a non-negative integer");
  EXPECT_EQ(error_in(R"({"n": 1.5})", [](const JsonFields& top) { top.integer("n"); }),
            "field 'n' is not an integer");
  EXPECT_EQ(error_in(R"({"names": ["a", 2]})", [](const JsonFields& top) { top.strings("names"); }),
            "field 'names[1]' is not a string");
  EXPECT_EQ(error_in(R"({"dims": {"N": "x"}})",
                     [](const JsonFields& top) { top.members("dims")[0].second.as_integer(); }),
            "field 'dims.N' is not a number");
  EXPECT_EQ(error_in("[]", [](const JsonFields& top) { top.text("schema"); }),
            "field '' is not an object");
}

TEST(JsonReader, NamesWhereTheTextIsMalformed) {
  const auto error_in = [](const std::string& text) {
    return error_of([&text] { JsonDocument document(text); });
  };
  EXPECT_EQ(error_in("{\"a\": 1,\n \"b\" 2}"),
            "line 2, column 6: syntax error while parsing object separator - unexpected number "
            "literal; expected ':'");
  EXPECT_THAT(error_in("[1, 2"), StartsWith("line 1, column 6: "));
  EXPECT_THAT(error_in("{\"a\": tru}"), StartsWith("line 1, column "));
  EXPECT_THAT(error_in("\"open"), HasSubstr("missing closing quote"));
  EXPECT_THAT(error_in("{} {}"), StartsWith("line 1, column 4: "));
  EXPECT_THAT(error_in("[1.2.3]"), StartsWith("line 1, column 5: "));
  EXPECT_EQ(error_in("[1e400]"), "a number is out of range (number overflow parsing '1e400')");
  // A hostile file nested a million deep neither overflows the stack nor is refused.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_EQ(error_in(deep), "(no error)");
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
            "'" + path + "': line 4, column 3: syntax error while parsing object key - unexpected "
            "end of input; expected string literal");
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
