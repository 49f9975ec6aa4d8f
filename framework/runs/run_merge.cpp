#include "framework/runs/run_merge.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "framework/base/file_access.h"
#include "framework/base/option_parsing.h"
#include "framework/runs/run_folder.h"

namespace rkt {
namespace {

// Throws unless every shard agrees with the first on `what`.
template <typename Field>
void require_same(const std::vector<RunReport>& shards, const std::vector<std::string>& labels,
                  const std::string& what, Field field) {
  for (std::size_t s = 1; s < shards.size(); ++s) {
    if (field(shards[s]) != field(shards[0])) {
      throw std::invalid_argument("the shards are not of one run: " + what + " is '" +
                                  field(shards[0]) + "' in " + labels[0] + " but '" +
                                  field(shards[s]) + "' in " + labels[s]);
    }
  }
}

// "isolated" or "in-process": the mode, without the sandbox's details.
std::string isolation_mode(const RunReport& report) {
  return report.isolation.substr(0, report.isolation.find(' '));
}

}  // namespace

RunReport merge_shards(const std::vector<RunReport>& shards, const std::vector<std::string>& labels) {
  if (shards.empty()) throw std::invalid_argument("no shards to merge");
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (shards[s].shard_count == 0) {
      throw std::invalid_argument(labels[s] + " is not a shard (it was not run with --shard I/N)");
    }
    if (!shards[s].finished) {
      throw std::invalid_argument(labels[s] + " did not finish (\"finished\": false): run shard " +
                                  std::to_string(shards[s].shard_index) + "/" +
                                  std::to_string(shards[s].shard_count) + " again");
    }
  }
  require_same(shards, labels, "the seed", [](const RunReport& r) { return std::to_string(r.seed); });
  require_same(shards, labels, "the hidden inputs", [](const RunReport& r) { return r.hidden_inputs; });
  require_same(shards, labels, "the isolation mode", isolation_mode);
  require_same(shards, labels, "the --kernel selection", [](const RunReport& r) { return r.kernel_filter; });
  require_same(shards, labels, "the shard count N",
               [](const RunReport& r) { return std::to_string(r.shard_count); });
  require_same(shards, labels, "the number of selected kernels",
               [](const RunReport& r) { return std::to_string(r.selected_kernels); });

  const int count = shards[0].shard_count;
  std::map<int, std::string> given;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const int index = shards[s].shard_index;
    if (given.count(index) != 0) {
      throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) +
                                  " is given twice: " + given[index] + " and " + labels[s]);
    }
    given[index] = labels[s];
  }
  std::string missing;
  for (int index = 1; index <= count; ++index) {
    if (given.count(index) == 0) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(index) + "/" + std::to_string(count);
    }
  }
  if (!missing.empty()) throw std::invalid_argument("shards missing: " + missing);

  RunReport merged;
  merged.started_utc = shards[0].started_utc;
  merged.seed = shards[0].seed;
  merged.hidden_inputs = shards[0].hidden_inputs;
  merged.isolation = shards[0].isolation;
  merged.kernel_filter = shards[0].kernel_filter;
  merged.merged_shards = count;
  merged.finished = true;
  std::map<std::string, std::string> kernel_shard;  // full id and device -> the shard that ran it
  std::map<std::string, std::string> peaks_shard;
  // Shards in index order, so that "the first shard that used a device" does not depend on the
  // order of the command line.
  std::vector<std::size_t> order(shards.size());
  for (std::size_t s = 0; s < order.size(); ++s) order[s] = s;
  std::sort(order.begin(), order.end(), [&shards](std::size_t a, std::size_t b) {
    return shards[a].shard_index < shards[b].shard_index;
  });
  for (const std::size_t s : order) {
    const RunReport& shard = shards[s];
    merged.started_utc = std::min(merged.started_utc, shard.started_utc);
    for (const auto& [device, peaks] : shard.peaks) {
      const auto known = merged.peaks.find(device);
      if (known == merged.peaks.end()) {
        merged.peaks[device] = peaks;
        peaks_shard[device] = labels[s];
      } else if (known->second.device_name != peaks.device_name) {
        throw std::invalid_argument(
            "the shards measured " + device + " kernels on different devices ('" +
            known->second.device_name + "' in " + peaks_shard[device] + ", '" + peaks.device_name +
            "' in " + labels[s] + "): their times and speedups would not compare; run every "
            "shard on one device model");
      }
    }
    for (const KernelReport& kernel : shard.kernels) {
      const std::string key = kernel.full_id() + " on " + kernel.device;
      if (kernel_shard.count(key) != 0) {
        throw std::invalid_argument("kernel " + key + " is in two shards: " + kernel_shard[key] +
                                    " and " + labels[s]);
      }
      kernel_shard[key] = labels[s];
      merged.kernels.push_back(kernel);
    }
  }
  if (static_cast<int>(merged.kernels.size()) != shards[0].selected_kernels) {
    throw std::invalid_argument("the shards hold " + std::to_string(merged.kernels.size()) +
                                " kernels but the run selected " +
                                std::to_string(shards[0].selected_kernels) +
                                " (shards of different builds?)");
  }
  std::sort(merged.kernels.begin(), merged.kernels.end(),
            [](const KernelReport& a, const KernelReport& b) { return a.full_id() < b.full_id(); });
  return merged;
}

int run_merge_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  std::vector<std::string> runs;
  std::string error;
  if (!parse_arguments(args, {"--out"}, {}, values, runs, error)) {
    return report_usage_error("merge: " + error);
  }
  if (values["--out"].empty()) return report_usage_error("merge needs --out DIR");
  if (runs.empty()) return report_usage_error("merge needs the shards' run folders (or results.json files)");
  std::vector<RunReport> shards;
  for (const std::string& run : runs) {
    try {
      shards.push_back(read_run_results(run));
    } catch (const std::invalid_argument& problem) {
      std::cerr << "rkt merge: " << problem.what() << "\n";
      return 2;
    }
  }
  RunReport merged;
  try {
    merged = merge_shards(shards, runs);
  } catch (const std::invalid_argument& problem) {
    std::cerr << "rkt merge: refused: " << problem.what() << "\n";
    return 2;
  }
  try {
    make_directories(values["--out"]);
    write_run_folder(values["--out"], merged);
  } catch (const std::exception& problem) {
    std::cerr << "rkt merge: " << problem.what() << "\n";
    return 2;
  }
  int failures = 0;
  for (const KernelReport& kernel : merged.kernels) failures += kernel.verdict() == "FAIL";
  std::cout << "rkt merge: " << merged.kernels.size() << " kernels from " << shards.size()
            << " shards (seed " << merged.seed << "), " << failures << " failing; wrote "
            << values["--out"] << "/results.json, report.md and report.html\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace rkt
