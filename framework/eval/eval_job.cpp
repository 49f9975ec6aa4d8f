#include "framework/eval/eval_job.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <mutex>
#include <thread>

#include "framework/base/file_access.h"
#include "framework/base/utc_time.h"
#include "framework/eval/child_command.h"
#include "framework/eval/eval_defaults.h"
#include "framework/eval/eval_record.h"
#include "framework/eval/kernel_source.h"
#include "framework/eval/library_cache.h"
#include "framework/eval/library_compiler.h"
#include "framework/eval/library_judge.h"
#include "framework/eval/recheck.h"
#include "framework/eval/visible_gpus.h"
#include "framework/eval/warm_judge.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/registry/declaration_policy.h"
#include "framework/runs/run_folder.h"

namespace rkt {
namespace {

constexpr const char* kRecordsFile = "eval.jsonl";  // in the run folder: one record per line

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string stem_of(const std::string& path) {
  const std::string name = base_name(path);
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// The records of an earlier call into the same folder, by library hash (resume).
std::map<std::string, std::vector<EvalRecord>> earlier_records(const std::string& directory) {
  std::map<std::string, std::vector<EvalRecord>> earlier;
  const std::string path = directory + "/" + kRecordsFile;
  if (!file_exists(path)) return earlier;
  std::istringstream lines(read_whole_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    try {
      EvalRecord record = eval_record_from_json(line);
      if (!record.library_hash.empty()) earlier[record.library_hash].push_back(record);
    } catch (const std::invalid_argument&) {
      // A line cut short by an interrupted write: that file is judged again.
    }
  }
  return earlier;
}

// An earlier call's records of `source`, with its kernels read back from its child's run
// folder; empty when it was not judged to the end (then it is judged again).
std::vector<EvalRecord> resumed_records(const std::vector<EvalRecord>& earlier,
                                        const CompiledSource& source, const std::string& directory,
                                        bool allow_declarations) {
  std::vector<EvalRecord> records;
  // Judged under --allow-declarations, and now without: judged again, so that it is refused.
  const bool allowed_then = std::any_of(earlier.begin(), earlier.end(), [](const EvalRecord& record) {
    return record.declarations_allowed;
  });
  if (allowed_then && !allow_declarations) return records;
  // A judge that ran out of time is tried again (perhaps with a larger --file-timeout), and so is
  // a refused declaration (perhaps now with --allow-declarations; a refusal costs no case).
  const bool timed_out = std::any_of(earlier.begin(), earlier.end(), [](const EvalRecord& record) {
    return record.status == "judge_timeout" || record.status == "declaration_refused";
  });
  if (timed_out) return records;
  const bool judged = std::any_of(earlier.begin(), earlier.end(),
                                  [](const EvalRecord& record) { return record.status == "judged"; });
  if (!judged) {
    for (EvalRecord record : earlier) {
      record.file = source.source;
      record.library = source.library;
      records.push_back(record);
    }
    return records;
  }
  RunReport report;
  try {
    report = read_run_results(directory + "/libraries/" + source.key + "/results.json");
  } catch (const std::invalid_argument&) {
    return {};
  }
  if (!report.finished) return {};
  for (const KernelReport& kernel : report.kernels) {
    EvalRecord record;
    record.file = source.source;
    record.library_hash = source.key;
    record.library = source.library;
    record.status = "judged";
    record.declarations_allowed = allowed_then;
    record.has_kernel = true;
    record.kernel = kernel;
    records.push_back(record);
  }
  return records;
}

// The name a record's entry takes in the run folder unless it clashes: the kernel's registered
// id, or for a file without kernels its stem.
std::string plain_entry_id(const EvalRecord& record, const std::string& stem, const std::string& task) {
  if (record.has_kernel) return record.kernel.full_id();
  return (task.empty() ? "unknown" : task) + "/" + stem;
}

// The run folder's entry of a record: its kernel under its registered id, the one its messages
// and replay commands use; under a file-prefixed id ("<file stem>:<kernel>") only when another
// file of the batch registers the same id (`clashes`), as generated candidates often do. A file
// without kernels is a failed entry named by its stem.
KernelReport report_entry(const EvalRecord& record, const std::string& stem, const std::string& task,
                          bool clashes) {
  KernelReport entry;
  if (record.has_kernel) {
    entry = record.kernel;
    if (clashes) entry.kernel = stem + ":" + record.kernel.kernel;
    if (!record.recheck_disagreement.empty()) {
      entry.cases.problems.push_back("recheck (fresh processes, fresh secret seed): " +
                                     record.recheck_disagreement);
    }
    return entry;
  }
  entry.task = task.empty() ? "unknown" : task;
  entry.kernel = stem;
  entry.device = is_cuda_source(record.file) ? "cuda" : "cpu";
  entry.precision = "fp32";
  entry.cases.problems.push_back(record.status + ": " + record.message);
  entry.benchmark.task = entry.task;
  entry.benchmark.kernel = entry.kernel;
  entry.benchmark.device = entry.device;
  entry.benchmark.problem = "no kernel was judged (" + record.status + ")";
  return entry;
}

std::string number_text(double value, int digits) {
  std::ostringstream text;
  text << std::setprecision(digits) << value;
  return text.str();
}

// A message's first line that says something (gtest starts a failure with a bare "Failed").
std::string first_meaningful_line(const std::string& message) {
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line != "Failed") return line;
  }
  return message;
}

// "pass  relu/honest  median 0.0123 ms, 1.8x [1.7, 1.9] vs eager_fp32" or the failure in short.
std::string progress_line(const EvalRecord& record) {
  std::ostringstream line;
  if (!record.has_kernel) {
    const std::string first_line = record.message.substr(0, record.message.find('\n'));
    line << "FAIL  " << record.file << "  " << record.status << ": " << first_line;
    return line.str();
  }
  const KernelReport& kernel = record.kernel;
  line << kernel.verdict() << "  " << record.file << "  " << kernel.full_id() << "  ("
       << kernel.cases.count("passed") << " passed, "
       << kernel.cases.count("failed") + kernel.cases.count("crashed") << " failed";
  if (kernel.benchmark.measured) {
    const RatioInterval& speedup = kernel.benchmark.speedup_vs_strongest;
    line << "; median " << number_text(kernel.benchmark.time.median, 4) << " ms, "
         << number_text(speedup.ratio, 3) << "x [" << number_text(speedup.low, 3) << ", "
         << number_text(speedup.high, 3) << "] vs " << kernel.benchmark.strongest_baseline;
  }
  line << ")";
  for (const CaseRecord& item : kernel.cases.cases) {
    if (item.status == "failed" || item.status == "crashed") {
      line << "\n      first failure: " << item.name << " " << item.status << ": "
           << first_meaningful_line(item.message);
      break;
    }
  }
  return line.str();
}

std::string summary_table(const std::vector<EvalRecord>& records) {
  std::ostringstream table;
  table << "| file | kernel | status | verdict | median (ms) | speedup vs strongest |\n"
        << "|---|---|---|---|---|---|\n";
  for (const EvalRecord& record : records) {
    table << "| " << record.file << " | " << (record.has_kernel ? record.kernel.full_id() : "-")
          << " | " << record.status << " | " << record.verdict() << " | ";
    if (record.has_kernel && record.kernel.benchmark.measured) {
      const BenchmarkRecord& benchmark = record.kernel.benchmark;
      table << number_text(benchmark.time.median, 4) << " | "
            << number_text(benchmark.speedup_vs_strongest.ratio, 3) << "x ("
            << benchmark.strongest_baseline << ") |\n";
    } else {
      table << "- | - |\n";
    }
  }
  return table.str();
}

}  // namespace

int run_eval_job(const EvalOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::ostream& progress = options.json ? std::cerr : std::cout;
  const std::string directory = options.output_directory.empty()
                                    ? "runs/eval-" + utc_time("%Y%m%dT%H%M%SZ")
                                    : options.output_directory;
  if (file_exists(directory + "/results.json") && !file_exists(directory + "/" + kRecordsFile)) {
    std::cerr << "rkt eval: error: " << directory
              << " holds a run that is not an eval (no " << kRecordsFile
              << "); choose another --out\n";
    return 2;
  }
  const std::string cache = eval_cache_folder();
  std::int64_t cache_limit = 0;  // [bytes]
  try {
    cache_limit = eval_cache_limit_bytes();
    make_directories(directory + "/libraries");
    make_directories(cache);
  } catch (const std::exception& error) {
    std::cerr << "rkt eval: error: " << error.what() << "\n";
    return 2;
  }
  const int jobs = options.jobs > 0 ? options.jobs
                                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const EvalToolchain toolchain = eval_toolchain(options.worker);
  progress << "rkt eval: " << counted(options.sources.size(), "file") << ", " << jobs
           << (jobs == 1 ? " compiler" : " compilers") << " at a time (toolchain: " << toolchain.origin << "; libraries cached in "
           << cache << "), seed " << base_seed() << " (RKT_SEED=" << base_seed()
           << " reproduces), results in " << directory << "\n"
           << std::flush;
  // CUDA files: --judges-per-gpu child judges on each visible GPU at a time, each shown its GPU
  // alone (several GPUs) and timing with the GPU to itself (framework/timing/device_lease.h).
  // CPU files after them, one at a time: CPU benchmarks running side by side would time each other.
  const std::vector<std::string> gpus = visible_gpus();
  const std::vector<std::string> slots = judge_slots(
      gpus.size() > 1 ? gpus : std::vector<std::string>{},
      options.judges_per_gpu > 0 ? options.judges_per_gpu : judges_per_gpu_by_default());
  // Each slot's next child judge is started ahead (warm_judge.h); the first judge of every slot
  // the first files will use starts now, so that it loads while the compiler runs (a cached file:
  // while the cache is read).
  std::vector<std::unique_ptr<WarmJudge>> warm;
  for (std::size_t s = 0; s < slots.size(); ++s) warm.push_back(std::make_unique<WarmJudge>(options.judge));
  const auto cuda_sources =
      static_cast<std::size_t>(std::count_if(options.sources.begin(), options.sources.end(), is_cuda_source));
  std::size_t first_judges = options.sources.empty() ? 0 : 1;
  if (slots.size() > 1 && cuda_sources > 1) first_judges = std::min(slots.size(), cuda_sources);
  for (std::size_t s = 0; s < first_judges; ++s) warm[s]->start_ahead(cuda_sources > 0 ? slots[s] : "");
  const std::vector<CompiledSource> compiled = compile_sources(options.sources, toolchain, cache, jobs);
  std::set<std::string> in_use;
  for (const CompiledSource& source : compiled) {
    if (!source.key.empty()) in_use.insert(source.key);
  }
  const CachePruning pruned = prune_library_cache(cache, cache_limit, in_use);
  if (pruned.removed_entries > 0) {
    progress << "rkt eval: the library cache was over its " << cache_limit / (1024 * 1024)
             << " MiB limit (" << eval_defaults::kCacheLimitVariable << "): removed the "
             << pruned.removed_entries << " least recently used entries ("
             << number_text(static_cast<double>(pruned.removed_bytes) / (1024 * 1024), 3) << " MiB)\n"
             << std::flush;
  }
  const double compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int fresh = 0, from_cache = 0;
  std::map<std::string, int> not_compiled;  // status -> files ("compile_error": 1)
  for (const CompiledSource& source : compiled) {
    fresh += source.compiled() && !source.cached;
    from_cache += source.compiled() && source.cached;
    if (!source.compiled()) ++not_compiled[source.status];
  }
  // "compiled 2 libraries in 3.1 s (1 from the cache); 1 file gave no library: compile_error": a file that
  // gave no library is said to have failed, never counted as "compiled 0".
  progress << "rkt eval: compiled " << counted(fresh, "library", "libraries") << " in "
           << number_text(compile_seconds, 3) << " s (" << from_cache << " from the cache)";
  if (!not_compiled.empty()) {
    int failed = 0;
    std::string statuses;
    for (const auto& [status, files] : not_compiled) {
      failed += files;
      statuses += (statuses.empty() ? "" : ", ") + status + (files > 1 ? " x" + std::to_string(files) : "");
    }
    progress << "; " << counted(failed, "file") << " gave no library: " << statuses;
  }
  progress << "\n" << std::flush;

  const std::map<std::string, std::vector<EvalRecord>> earlier = earlier_records(directory);
  RunReport report;
  report.started_utc = utc_time("%Y-%m-%dT%H:%M:%SZ");
  report.seed = base_seed();
  report.hidden_inputs = "as each file's judge read them (RKT_HIDDEN_SUITE)";
  report.isolation = "isolated (each file's kernels ran in workers of a judge of its own)";
  report.kernel_filter = options.task.empty() ? "" : options.task + "/";
  std::vector<std::string> stems;  // the run folder's kernel prefix per file, unique
  std::map<std::string, int> stem_uses;
  for (const CompiledSource& source : compiled) {
    std::string stem = stem_of(source.source);
    if (++stem_uses[stem] > 1) stem += "#" + std::to_string(stem_uses[stem]);
    stems.push_back(stem);
  }
  // Each file's records once it is done; the outputs are rewritten from all of them, in the
  // order the files were given, after every file (an interrupted batch loses nothing).
  std::vector<std::optional<std::vector<EvalRecord>>> done(compiled.size());
  std::mutex finishing;
  bool unwritable = false;
  // Writes eval.jsonl and the run folder from every file done so far, in the order given.
  const auto write_outputs = [&] {
    std::string records_text;
    report.kernels.clear();
    std::map<std::string, std::set<std::size_t>> files_naming;  // plain entry id -> files
    for (std::size_t j = 0; j < done.size(); ++j) {
      if (!done[j]) continue;
      for (const EvalRecord& record : *done[j]) {
        files_naming[plain_entry_id(record, stems[j], options.task)].insert(j);
      }
    }
    for (std::size_t j = 0; j < done.size(); ++j) {
      if (!done[j]) continue;
      for (const EvalRecord& record : *done[j]) {
        records_text += eval_record_json(record) + "\n";
        const bool clashes = files_naming[plain_entry_id(record, stems[j], options.task)].size() > 1;
        report.kernels.push_back(report_entry(record, stems[j], options.task, clashes));
      }
    }
    try {
      write_file_atomically(directory + "/" + kRecordsFile, records_text);
      write_run_folder(directory, report);
    } catch (const std::runtime_error& error) {
      std::cerr << "rkt eval: error: " << error.what() << "\n";
      unwritable = true;
    }
  };
  // With --recheck the --json lines wait for the rechecks: each kernel is printed once, final.
  const bool json_as_judged = options.json && options.recheck == 0;
  const auto finish = [&](std::size_t i, std::vector<EvalRecord> file_records, bool resumed) {
    const std::lock_guard<std::mutex> hold(finishing);
    for (const EvalRecord& record : file_records) {
      progress << "rkt eval: [" << i + 1 << "/" << compiled.size() << "] " << progress_line(record)
               << (resumed ? "  (resumed: judged before with this library)" : "") << "\n"
               << std::flush;
      if (json_as_judged) std::cout << eval_record_json(record) << "\n" << std::flush;
    }
    done[i] = std::move(file_records);
    write_outputs();
  };
  bool bad_input = false;
  std::vector<std::size_t> cuda_files, other_files;  // to judge
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const CompiledSource& source = compiled[i];
    bad_input = bad_input || source.bad_input();
    if (!source.key.empty() && earlier.count(source.key) != 0) {
      std::vector<EvalRecord> resumed = resumed_records(earlier.at(source.key), source, directory, options.allow_declarations);
      if (!resumed.empty()) {
        finish(i, std::move(resumed), true);
        continue;
      }
    }
    if (!source.compiled()) {
      finish(i, {record_of_unjudged(source)}, false);
    } else {
      (source.cuda ? cuda_files : other_files).push_back(i);
    }
  }
  const auto judge = [&](std::size_t i, const std::string& gpu, WarmJudge& slot, bool more_follow) {
    {
      const std::lock_guard<std::mutex> hold(finishing);
      progress << "rkt eval: [" << i + 1 << "/" << compiled.size() << "] judging "
               << compiled[i].source << (gpu.empty() ? "" : " on GPU " + gpu) << "\n"
               << std::flush;
    }
    JudgeTarget target;
    target.folder = directory + "/libraries/" + compiled[i].key;
    target.gpu = gpu;
    target.warm = &slot;
    target.start_next_ahead = more_follow;
    finish(i, judge_library(options, compiled[i], target), false);
  };
  if (slots.size() > 1 && cuda_files.size() > 1) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> judges;
    for (std::size_t s = 0; s < std::min(slots.size(), cuda_files.size()); ++s) {
      judges.emplace_back([&, s] {
        for (std::size_t k = next++; k < cuda_files.size(); k = next++) {
          judge(cuda_files[k], slots[s], *warm[s], next.load() < cuda_files.size());
        }
      });
    }
    for (std::thread& thread : judges) thread.join();
  } else {
    for (std::size_t k = 0; k < cuda_files.size(); ++k) {
      judge(cuda_files[k], slots.front(), *warm.front(), k + 1 < cuda_files.size() || !other_files.empty());
    }
  }
  for (std::size_t k = 0; k < other_files.size(); ++k) {
    judge(other_files[k], "", *warm.front(), k + 1 < other_files.size());
  }
  warm.clear();  // a judge started ahead that no file took
  if (options.recheck > 0) {
    std::vector<JudgedFile> judged_files;
    for (std::size_t i = 0; i < compiled.size(); ++i) {
      if (done[i]) judged_files.push_back({&compiled[i], &*done[i]});
    }
    recheck_fastest(options, judged_files, directory, progress);
    write_outputs();
    if (options.json) {
      for (const auto& file_records : done) {
        if (!file_records) continue;
        for (const EvalRecord& record : *file_records) std::cout << eval_record_json(record) << "\n";
      }
      std::cout << std::flush;
    }
  }
  if (unwritable) return 2;
  std::vector<EvalRecord> records;
  for (const auto& file_records : done) {
    if (file_records) records.insert(records.end(), file_records->begin(), file_records->end());
  }
  report.finished = true;
  write_run_folder(directory, report);
  progress << "\n" << summary_table(records) << "\nrkt eval: " << records.size() << " records in "
           << number_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3)
           << " s; wrote " << directory << "/results.json, report.md, report.html and " << kRecordsFile
           << "\n";
  if (bad_input) return 2;
  const bool all_pass = std::all_of(records.begin(), records.end(),
                                    [](const EvalRecord& record) { return record.verdict() != "FAIL"; });
  return all_pass ? 0 : 1;
}

}  // namespace rkt
