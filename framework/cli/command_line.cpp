#include "framework/cli/command_line.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/base/number_text.h"
#include "framework/baselines/compiled_baseline.h"
#include "framework/baselines/twin_agreement.h"
#include "framework/benchmarks/google_benchmark_entries.h"
#include "framework/cases/case_selection.h"
#include "framework/cases/task_filter.h"
#include "framework/cli/listing.h"
#include "framework/eval/eval_command.h"
#include "framework/eval/eval_defaults.h"
#include "framework/serve/judge_server.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/registry/declaration_policy.h"
#include "framework/registry/task_selection.h"
#include "framework/supervision/device_skips.h"
#include "framework/registry/registry_validation.h"
#include "framework/runs/baseline_table.h"
#include "framework/runs/main_job.h"
#include "framework/runs/run_comparison.h"
#include "framework/runs/run_merge.h"
#include "framework/runs/run_sharding.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/memory_scrub.h"
#include "framework/supervision/case_records_json.h"
#include "framework/supervision/cases_beside.h"
#include "framework/supervision/gpu_pinning.h"
#include "framework/supervision/gtest_expansion.h"
#include "framework/supervision/junit_report.h"
#include "framework/supervision/started_ahead.h"
#include "framework/supervision/supervisor.h"
#include "framework/supervision/verdict_channel.h"
#include "framework/supervision/worker_loan.h"
#include "rkt/defaults.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

constexpr const char* kUsage = R"(rkt: tests and benchmarks kernels so that they cannot cheat.

Usage:
  rkt list [--json]                 tasks, kernels, and the test cases each kernel expands into
  rkt test [--kernel ID] [--filter GTEST_FILTER] [--timeout SECONDS] [--json]
           [--junit FILE | --gtest_output=xml[:FILE]]
                                    runs cases, each kernel in its own supervised process;
                                    --json: one JSON document on standard output, its
                                    "cases" one record per case (status, message, dims,
                                    scale, seed, config, reproduce);
                                    --junit: JUnit XML, one testcase per case (crashed and
                                    hung ones too), one testsuite per task/kernel, failure
                                    messages with the replay command (--gtest_output=xml:FILE
                                    as in GoogleTest; xml alone: %JUNIT_FILE%; xml:DIR/:
                                    DIR/<program>.xml); each ctest entry writes
                                    <build>/junit/<test name>.xml (docs/ci.md)
  rkt run [--out DIR] [--kernel ID] [--timeout SECONDS] [--benchmark-timeout SECONDS]
          [--shard I/N] [--replace] [--refuse-declarations]
                                    the main job: every kernel's cases, then a benchmark of
                                    each kernel that passed them against its task's baselines;
                                    writes DIR/results.json, report.md, report.html
                                    (default DIR: runs/<UTC time>); exit 1 when a kernel fails;
                                    a DIR holding a run is refused (exit 2) unless --replace;
                                    --refuse-declarations: exit 2 naming each waive_gate,
                                    allow_operators or domain-narrowing supports* line of a
                                    selected kernel (what rkt eval's judges run with)
  rkt compare BASE NEW [--tolerance PERCENT] [--absolute]
                                    the merge gate: BASE and NEW are results.json files or run
                                    folders; prints a Markdown table per kernel, absolute
                                    medians beside ratios; exit 0: no regression, 1: a kernel
                                    slower beyond the measured noise, failing or skipped in
                                    NEW, passing but not timed in NEW (benchmark refused),
                                    missing from NEW, or NEW unfinished; 2: unreadable input.
                                    Slower: both its median and its median's ratio to the
                                    strongest baseline both runs timed beside it have 95%
                                    intervals wholly above the base run's, widened by PERCENT
                                    (default %TOLERANCE%): machine drift moves the median alone,
                                    baseline drift the ratio alone; with --absolute, or
                                    without such a baseline, the medians' intervals decide;
                                    a kernel whose calls took under %SHORT_CALL% ms in both runs is
                                    not judged on time (per-call cost moves between processes)
  rkt eval FILE... [--task ID] [--out DIR] [--json] [--jobs N] [--judges-per-gpu J]
           [--timeout SECONDS] [--benchmark-timeout SECONDS] [--file-timeout SECONDS]
           [--allow-declarations] [--recheck K]
                                    compiles each .cpp/.cu file into its own kernel library
                                    (cached under $%EVAL_CACHE_VARIABLE% or ~/%EVAL_CACHE%, keyed by
                                    the source, the "..." headers it includes from its folder,
                                    compiler, flags and GPU architecture; least recently
                                    used removed past $%EVAL_CACHE_LIMIT_VARIABLE% MiB, default
                                    %EVAL_CACHE_LIMIT%; N
                                    compilers at a time, default the core count; files over
                                    %EVAL_MAX_BYTES% bytes refused), then judges every kernel as
                                    rkt run does, each file in a judge of its own (J .cu
                                    files at once on each GPU, default one per %CORES_PER_JUDGE%
                                    cores, 1 to %MAX_JUDGES_PER_GPU%; a benchmark waits until
                                    it has the GPU alone), killed
                                    after --file-timeout s in all (default %EVAL_FILE_TIMEOUT%;
                                    its finished kernels keep their records); --task: only
                                    that task's kernels; --json: one JSON record per kernel,
                                    one a line, on standard output (verdict, cases, first failure with its
                                    replay command, median, speedups with intervals, memory,
                                    library hash); DIR/results.json, report.md, report.html,
                                    eval.jsonl (default DIR: runs/eval-<UTC time>); a second
                                    call into DIR skips kernels judged with the same library.
                                    A file that waives a gate, allows an operator or declares
                                    a domain narrower than its task's is refused (status
                                    declaration_refused, naming each line) unless
                                    --allow-declarations; requires_alignment is allowed.
                                    --recheck K: the K fastest kernels that passed are judged
                                    again in fresh processes with a fresh secret seed; the
                                    record keeps both verdicts and timings, and a second
                                    verdict not pass, a timing not taken again or one slower
                                    beyond both runs' noise (rkt compare's rule) fails the
                                    kernel; --json lines then come after the rechecks.
                                    Exit 0: all passed; 1: a kernel failed or a file gave none
                                    (compile_error, no_registration, declaration_refused, ...); 2: a
                                    file missing, unreadable, empty or too large, or bad options
  rkt eval --server SOCKET FILE... [--task ID] [--json] [--timeout SECONDS] ...
                                    the same records from a running rkt serve (every file
                                    sent at once, queued fairly by the server); --out,
                                    --jobs and --recheck belong to a local rkt eval
  rkt serve --socket PATH [--out DIR] [--judges-per-gpu J] [--timeout SECONDS]
            [--benchmark-timeout SECONDS] [--file-timeout SECONDS] [--allow-declarations]
                                    a long-lived judge on a Unix socket (mode 0600): JSON
                                    lines in, {"id", "file" or "source" + "name", "task",
                                    "timeout", ...}; out, per request, the records rkt eval
                                    --json prints, then {"id", "done": true, "verdict", ...};
                                    a bad request gets {"id", "error"}; J judges per GPU for
                                    .cu files (as rkt eval's), one for .cpp, clients served
                                    in turn; records
                                    appended to DIR/eval.jsonl, each request's run folder in
                                    DIR/requests/N (default DIR: runs/serve-<UTC time>);
                                    docs/serve.md; tools/rkt_serve_client.py is its client
  rkt template TASK [--device cpu|cuda]
                                    prints a kernel file for TASK that compiles as printed:
                                    its inputs, outputs, dims, the declared precision and the
                                    ROBUST_KERNEL_TEST line; the body is yours to write
  rkt merge --out DIR RUN...        combines the run folders of one sharded run (every shard
                                    1/N..N/N, same seed) into DIR/results.json, report.md,
                                    report.html; refuses (exit 2) overlaps, gaps, mismatches
  rkt filter [--json] [--task ID[,ID...]]
                                    judges every task (--task: those whose ids contain one of
                                    the fragments): excluded from aggregates when a kernel
                                    that does no real work passes it (or robust-kbench's
                                    statistics find it degenerate), precision-blind when only
                                    the reference in bf16 passes; counts per source, wall time
  rkt catalog                       the task catalog in Markdown (docs/tasks.md)
  rkt aoti-spec [--device cpu|cuda] what tools/aoti/build_packages.py builds for the compiled
                                    baseline: each task's package path and input shapes (JSON)
  rkt baselines [--out DIR] [--task ID[,ID...]] [--device cpu|cuda] [--shard I/N]
                                    the baseline table: every task's eager fp32, eager TF32 and
                                    compiled medians with 95% intervals, peak memory and the
                                    physical floor; DIR/results.json, report.md, report.html,
                                    rewritten after each task; a second run into the same DIR
                                    measures only tasks not yet measured (default DIR:
                                    runs/baselines-<UTC time>; device: cuda when visible);
                                    --shard: the tasks at positions I, I+N, ... by id (one
                                    shard per GPU; docs/sharding.md merges them)
  rkt twin-inputs --dir DIR [--task ID]
  rkt twin-check --dir DIR [--task ID]
                                    the twin agreement check's two halves (run both through
                                    tools/twins/check_twins.py): write each forward task's
                                    inputs at the small dims on the four distributions; judge
                                    the twins' outputs against the float64 reference
  rkt bench [--benchmark_* flags]   Google Benchmark entries for every kernel and baseline
                                    (e.g. --benchmark_filter=softmax --benchmark_out=b.json
                                    --benchmark_out_format=json, for compare.py)
  rkt --help

  --kernel ID      only the kernel whose "task/kernel" id is ID, or else the kernels whose
                   id contains ID; repeated, the kernels any of them selects (--kernel relu
                   --kernel softmax: both tasks'; --kernel relu/cpu_loops: that kernel alone)
  --filter F       a gtest filter over "task/kernel.case" names, e.g. "softmax/*.correctness_*"
                   (with --kernel, only cases both select run); given once: join
                   patterns with ':' (a second --filter is refused)
  --timeout S      a case silent for S seconds is killed as hung (default %TIMEOUT% s;
                   ctest entries pass %CTEST_TIMEOUT% s)
  --benchmark-timeout S
                   rkt run: a kernel's benchmark silent for S seconds is killed and the kernel
                   fails (default %BENCH_TIMEOUT% s; --timeout does not apply to benchmarks)
  --shard I/N      run only shard I of N: the selected kernels sorted by id, those at
                   positions I, I+N, I+2N, ... (docs/sharding.md); give every shard the same
                   RKT_SEED, then rkt merge

Environment:
  RKT_SEED=N       reproduces a run's inputs (each run prints its seed)
  RKT_SECRET_SEED=N  mixed into every seed; read once and removed from the environment
  RKT_HIDDEN_SUITE=FILE  extra hidden cases (docs/threat_model.md); reports never show them
  RKT_HIDDEN_VERBOSE=1   show hidden cases' details in failure messages
  RKT_AOTI_CACHE=DIR     where compiled-baseline packages live (default ~/.cache/rkt/aoti)
  RKT_GPU_WORKER_LENDING=0  on a GPU machine, each child judge starts its own worker (default:
                         the parent lends its worker, as on the CPU)
  RKT_LIGHT_WORKER=0     every worker loads LibTorch (default: only for a kernel library that
                         needs it; a library of view-form kernels runs in a worker without it)
  RKT_TRACE_OFF_STREAM_WORK=0  no CUPTI trace, in the judge or its workers: the escaped-work
                         gate reads the host's clock and holds the GPU alone (under a profiler)
  RKT_WORKER_NAME_REFUSED_CALLS=1  workers name each system call their sandbox refuses on
                         standard error (diagnosis; the call still fails with EPERM)
  RKT_WORKER_REPLY_TIMEOUT=S  a kernel call unanswered for S seconds kills its worker as hung;
                         the case fails and the kernel's later cases are not run (default %WORKER_REPLY_TIMEOUT%)
  RKT_HUNG_CALL_FACTOR=F  once a kernel has returned calls, a later one is hung after F times
                         their time (times the square of any growth in argument bytes), at least
                         %HUNG_CALL_FLOOR% s (default %HUNG_CALL_FACTOR%; 0: the reply timeout alone)
Benchmarks: samples until the median's relative noise is under %NOISE%%, at least %MIN_SAMPLES%
  samples, within %CUDA_BUDGET% ms of timed work on a GPU (%CPU_BUDGET% ms on the CPU); caches flushed and
  %INPUT_SETS% input sets rotated between samples; speedups with %CONFIDENCE%% bootstrap intervals.

  RC_PARAMS=...    rapidcheck settings; a failing property prints the RC_PARAMS that replays it
                   (default trials per property: %CPU_TRIALS% on CPU; on CUDA %CUDA_SMALL%
                   small-shape trials within %CUDA_SECONDS% s plus %CUDA_FULL% at full size, and
                   %CUDA_TRIALS% scale trials)
)";

std::string usage() {
  std::string text = kUsage;
  const auto replace = [&text](const std::string& key, const std::string& value) {
    text.replace(text.find(key), key.size(), value);
  };
  replace("%TIMEOUT%", std::to_string(defaults::kKernelProcessTimeoutSeconds));
  replace("%CTEST_TIMEOUT%", std::to_string(defaults::kCtestCaseTimeoutSeconds));
  replace("%WORKER_REPLY_TIMEOUT%", std::to_string(defaults::kWorkerReplyTimeoutSeconds));
  replace("%HUNG_CALL_FLOOR%", std::to_string(defaults::kHungCallFloorSeconds));
  replace("%HUNG_CALL_FACTOR%", fixed_digits(defaults::kHungCallFactor, 0));
  replace("%JUNIT_FILE%", kDefaultJunitFile);
  replace("%EVAL_CACHE_VARIABLE%", eval_defaults::kCacheVariable);
  replace("%EVAL_CACHE%", eval_defaults::kCacheFolderUnderHome);
  replace("%EVAL_MAX_BYTES%", std::to_string(eval_defaults::kMaxSourceBytes));
  replace("%EVAL_FILE_TIMEOUT%", std::to_string(eval_defaults::kFileTimeoutSeconds));
  replace("%CORES_PER_JUDGE%", std::to_string(eval_defaults::kCoresPerJudge));
  replace("%MAX_JUDGES_PER_GPU%", std::to_string(eval_defaults::kMaxJudgesPerGpu));
  replace("%EVAL_CACHE_LIMIT_VARIABLE%", eval_defaults::kCacheLimitVariable);
  replace("%EVAL_CACHE_LIMIT%", std::to_string(eval_defaults::kCacheLimitMegabytes));
  replace("%BENCH_TIMEOUT%", std::to_string(defaults::kBenchmarkProcessTimeoutSeconds));
  replace("%TOLERANCE%",
          std::to_string(static_cast<int>(kCompareSlowdownTolerance * 100)) + "%");
  replace("%CPU_TRIALS%", std::to_string(defaults::kPropertyTrialsCpu));
  replace("%CUDA_SMALL%", std::to_string(defaults::kPropertySmallTrialsCuda));
  replace("%CUDA_SECONDS%", std::to_string(static_cast<int>(defaults::kPropertySmallTrialsSecondsCuda)));
  replace("%CUDA_FULL%", std::to_string(defaults::kPropertyFullSizeTrialsCuda));
  replace("%CUDA_TRIALS%", std::to_string(defaults::kPropertyTrialsCuda));
  replace("%NOISE%", std::to_string(static_cast<int>(defaults::kBenchmarkTargetNoise * 100)));
  replace("%MIN_SAMPLES%", std::to_string(defaults::kBenchmarkMinSamples));
  replace("%CUDA_BUDGET%", std::to_string(static_cast<int>(defaults::kBenchmarkBudgetMillisecondsCuda)));
  replace("%CPU_BUDGET%", std::to_string(static_cast<int>(defaults::kBenchmarkBudgetMillisecondsCpu)));
  replace("%INPUT_SETS%", std::to_string(defaults::kBenchmarkInputSets));
  replace("%SHORT_CALL%", fixed_digits(defaults::kShortBenchmarkCallMilliseconds, 1));
  replace("%CONFIDENCE%", std::to_string(static_cast<int>(defaults::kSpeedupConfidence * 100)));
  return text;
}

std::string own_executable(const char* argv0) {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return argv0;
  path[n] = '\0';
  return path;
}

int usage_error(const std::string& message) {
  std::cerr << "rkt: " << message << "\nRun 'rkt --help' for usage.\n";
  return 2;
}

// The child side: plain gtest over the expanded cases, reporting through the verdict channel.
int run_child(int argc, char** argv) {
  poison_host_allocations();  // Freshly allocated host memory reads as NaN (integrity gate 1).
  ::testing::InitGoogleTest(&argc, argv);
  const bool supervised = install_verdict_reporter();
  register_gtest_cases();
  install_cases_beside();  // The sanitizer cases start when gtest has chosen the cases.
  const int status = RUN_ALL_TESTS();
  if (supervised) report_run_complete();
  return status;
}

// An error saying that no kernel id contains `fragment`, with the nearest ids, else "".
std::string unknown_kernel_error(const std::string& fragment) {
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id().find(fragment) != std::string::npos) return "";
  }
  std::string message = "--kernel '" + fragment + "' matches none of the " +
                        std::to_string(registered_kernels().size()) +
                        " registered kernels (it selects ids \"task/kernel\" that contain it)";
  const std::vector<std::string> near = closest_kernel_ids(fragment, 3);
  for (std::size_t i = 0; i < near.size(); ++i) {
    message += (i == 0 ? "; did you mean " : ", ") + ("'" + near[i] + "'");
  }
  return message + (near.empty() ? "; 'rkt list' shows them" : "?");
}

// The first of the --kernel fragments that selects nothing, as unknown_kernel_error says it.
std::string unknown_kernel_error(const std::vector<std::string>& fragments) {
  for (const std::string& fragment : fragments) {
    if (const std::string error = unknown_kernel_error(fragment); !error.empty()) return error;
  }
  return "";
}

struct ParsedOptions {
  bool json = false;
  bool replace = false;
  bool refuse_declarations = false;  ///< --refuse-declarations (rkt run)
  std::string ctest_file;
  std::vector<std::string> kernels;  ///< --kernel, repeatable: the union of what each selects.
  std::string filter;
  std::string task;           ///< --task ID[,ID...] (rkt filter): tasks containing any fragment
  std::string out;
  std::string junit;          ///< --junit FILE
  std::string gtest_output;   ///< --gtest_output=VALUE, as GoogleTest reads it
  std::string device = "cuda";
  int timeout = 0;
  int benchmark_timeout = 0;
  ShardSpec shard;
};

// Parses "--name value" options (and GoogleTest's "--gtest_name=value"); unknown flags are
// errors naming the flag.
bool parse_options(const std::vector<std::string>& args, const std::vector<std::string>& allowed,
                   ParsedOptions& options, std::string& error) {
  bool filter_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string attached_value;  // GoogleTest's flags carry their value after '='.
    const std::size_t equals = arg.find('=');
    const bool attached = arg.rfind("--gtest_", 0) == 0 && equals != std::string::npos;
    if (attached) {
      attached_value = arg.substr(equals + 1);
      arg.erase(equals);
    }
    const bool known =
        std::find(allowed.begin(), allowed.end(), arg) != allowed.end();
    if (!known) {
      std::string takes;
      for (const std::string& name : allowed) takes += (takes.empty() ? "" : ", ") + name;
      error = "unknown option '" + args[i] + "'" +
              (takes.empty() ? "; this command takes no options" : "; this command takes " + takes);
      return false;
    }
    if (arg == "--json" || arg == "--replace") {
      (arg == "--json" ? options.json : options.replace) = true;
      continue;
    }
    if (arg == "--refuse-declarations") {
      options.refuse_declarations = true;
      continue;
    }
    if (!attached && i + 1 >= args.size()) {
      error = "option '" + arg + "' needs a value";
      return false;
    }
    const std::string& value = attached ? attached_value : args[++i];
    if (arg == "--ctest") options.ctest_file = value;
    if (arg == "--junit" || arg == "--gtest_output") {
      if (!options.junit.empty() || !options.gtest_output.empty()) {
        error = "--junit and --gtest_output both name the JUnit report; give one of them once";
        return false;
      }
      if (value.empty()) {
        error = arg + " needs a file name";
        return false;
      }
      (arg == "--junit" ? options.junit : options.gtest_output) = value;
    }
    if (arg == "--kernel") options.kernels.push_back(value);
    if (arg == "--filter") {
      // A second --filter would replace the first without a word; gtest patterns already join
      // with ':', so one --filter says the union.
      if (filter_given) {
        error = "--filter given twice ('" + options.filter + "', '" + value +
                "'); join the patterns with ':' in one --filter (--filter '" + options.filter +
                ":" + value + "')";
        return false;
      }
      filter_given = true;
      options.filter = value;
    }
    if (arg == "--out") options.out = value;
    if (arg == "--task") options.task = value;
    if (arg == "--shard") {
      try {
        options.shard = parse_shard(value);
      } catch (const std::invalid_argument& problem) {
        error = problem.what();
        return false;
      }
    }
    if (arg == "--device") {
      if (value != "cpu" && value != "cuda") {
        error = "--device takes 'cpu' or 'cuda', not '" + value + "'";
        return false;
      }
      options.device = value;
    }
    if (arg == "--timeout" || arg == "--benchmark-timeout") {
      int seconds = 0;
      try {
        seconds = std::stoi(value);
      } catch (const std::exception&) {
        seconds = 0;
      }
      if (seconds <= 0) {
        error = arg + " takes a positive number of seconds, not '" + value + "'";
        return false;
      }
      (arg == "--timeout" ? options.timeout : options.benchmark_timeout) = seconds;
    }
  }
  return true;
}

}  // namespace

int run_command_line(int argc, char** argv, const KernelLibraryLocation& kernels) {
  // The judge holds the secrets: its /proc files and memory are closed to other processes of its
  // user (a worker in particular), and it leaves no core dump.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // A process started ahead (framework/supervision/started_ahead.h) readies what its command will
  // need while it waits, then becomes its job: from here on, the job's command line.
  bool child_started_ahead = false;
  const std::optional<std::vector<std::string>> handed_over =
      become_handed_over_job(argc, argv, [&](const std::string& command) {
        if (command == "--rkt-child") ready_cuda_context();
        if (command == "run") {
          // Its worker (rkt eval's and rkt serve's judges learn their library with the job) and
          // its first case child, both loading while it waits.
          start_worker_awaiting_library(kernels);
          start_child_ahead(own_executable(argv[0]));
          child_started_ahead = true;
        }
      });
  std::vector<std::string> job_arguments = handed_over.value_or(std::vector<std::string>{});
  std::vector<char*> job_argv;
  if (handed_over) {
    for (std::string& argument : job_arguments) job_argv.push_back(argument.data());
    argc = static_cast<int>(job_argv.size());
    job_argv.push_back(nullptr);
    argv = job_argv.data();
  }
  set_replay_program(own_executable(argv[0]));  // reproduce strings name this very binary
  log_gpu_pinning(pin_gpu_from_ctest_resources());  // Before anything starts CUDA.
  // --in-process (anywhere) selects the debugging mode through the environment, so that the
  // supervised children this process starts follow it.
  std::vector<char*> kept_arguments;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::string(argv[i]) == "--in-process") {
      setenv(kIsolationVariable, "in-process", 1);
    } else {
      kept_arguments.push_back(argv[i]);
    }
  }
  argc = static_cast<int>(kept_arguments.size());
  kept_arguments.push_back(nullptr);
  argv = kept_arguments.data();
  // The commands that need no kernels answer before the kernel library loads (no worker starts,
  // no secret is read): help, and the two that read result files.
  if (argc >= 2) {
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    // "rkt eval --help" as "rkt --help" (bench's flags are Google Benchmark's, its help too).
    const bool asks_for_help = command != "bench" && std::any_of(args.begin(), args.end(), [](const std::string& arg) {
      return arg == "--help" || arg == "-h";
    });
    if (command == "--help" || command == "-h" || command == "help" || asks_for_help) {
      std::cout << usage();
      return 0;
    }
    if (command == "compare") return run_compare_command(args);
    if (command == "merge") return run_merge_command(args);
    // Neither needs this judge's kernels: template reads the task registry, eval judges the
    // libraries it compiles in child judges of their own.
    if (command == "template") return run_template_command(args);
    if (command == "eval") return run_eval_command(args, own_executable(argv[0]), kernels);
    // The server judges every request in child judges, as eval does.
    if (command == "serve") return run_serve_command(args, own_executable(argv[0]), kernels.worker);
  }
  // The commands that judge in supervised children start the first one now: its start overlaps
  // the worker's (load_kernel_library) and this process's own preparations.
  const bool supervises = argc >= 2 && (std::string(argv[1]) == "run" || std::string(argv[1]) == "test");
  // Not for a ctest entry of a CUDA kernel on a machine without a GPU: its cases are skipped
  // without a child (device_skips.h), so one started ahead would only be killed.
  if (supervises && !child_started_ahead && !selection_surely_needs_a_missing_gpu()) {
    start_child_ahead(own_executable(argv[0]));
  }
  if (const std::string problem = load_kernel_library(kernels); !problem.empty()) {
    std::cerr << "rkt: error: " << problem << "\n";
    return 2;
  }
  const std::vector<std::string> errors = registry_errors();
  if (!errors.empty()) {
    for (const std::string& error : errors) std::cerr << "rkt: error: " << error << "\n";
    return 2;
  }
  try {
    // Read once, and removed from the environment, before any kernel runs.
    std::set<std::string> implemented;
    for (const KernelSpec* kernel : registered_kernels()) implemented.insert(kernel->task_id());
    const std::vector<std::string> suite_errors =
        hidden_suite_errors(hidden_inputs().suite, implemented);
    if (!suite_errors.empty()) {
      for (const std::string& error : suite_errors) std::cerr << "rkt: error: " << error << "\n";
      return 2;
    }
  } catch (const std::invalid_argument& error) {
    std::cerr << "rkt: error: " << error.what() << "\n";
    return 2;
  }
  if (argc >= 2 && std::string(argv[1]) == "--rkt-child") {
    // Drop our marker so gtest sees only its own flags.
    std::vector<char*> child_argv = {argv[0]};
    for (int i = 2; i < argc; ++i) child_argv.push_back(argv[i]);
    int child_argc = static_cast<int>(child_argv.size());
    child_argv.push_back(nullptr);
    return run_child(child_argc, child_argv.data());
  }
  if (argc < 2) {
    std::cerr << usage();
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  ParsedOptions options;
  std::string error;
  if (command == "list") {
    if (!parse_options(args, {"--json", "--ctest"}, options, error)) return usage_error(error);
    if (!options.ctest_file.empty()) {
      std::ofstream out(options.ctest_file);
      // The entries' JUnit files go beside the listing unless the CMake script moves them.
      const std::size_t slash = options.ctest_file.rfind('/');
      const std::string listing_folder =
          slash == std::string::npos ? "." : options.ctest_file.substr(0, slash);
      print_ctest_script(out, own_executable(argv[0]), listing_folder + "/junit");
      return out ? 0 : usage_error("cannot write '" + options.ctest_file + "'");
    }
    options.json ? print_listing_json(std::cout) : print_listing_text(std::cout);
    return 0;
  }
  if (command == "test") {
    if (!parse_options(args, {"--kernel", "--filter", "--timeout", "--json", "--junit", "--gtest_output"},
                       options, error)) {
      return usage_error(error);
    }
    if (const std::string unknown = unknown_kernel_error(options.kernels); !unknown.empty()) {
      return usage_error(unknown);
    }
    std::string junit_path = options.junit;
    if (!options.gtest_output.empty()) {
      junit_path = junit_path_from_gtest_output(options.gtest_output, argv[0], error);
      if (junit_path.empty()) return usage_error(error);
    }
    if (!junit_path.empty()) {
      // Refused before any case runs, not after an hour of them.
      if (const std::string problem = junit_path_problem(junit_path); !problem.empty()) {
        return usage_error(problem);
      }
    }
    SupervisionOptions supervision;
    supervision.executable = own_executable(argv[0]);
    // --kernel and --filter both apply: the cases of the chosen kernels that match the filter.
    supervision.gtest_filter = case_selection_filter(options.kernels, options.filter);
    if (supervision.gtest_filter.empty()) {
      return usage_error("no case of the kernels matching '" + kernel_selection_text(options.kernels) +
                         "' matches the filter '" + options.filter + "'");
    }
    if (options.timeout > 0) supervision.case_timeout_seconds = options.timeout;
    // --json: standard output carries the JSON alone; the children's own output is not shown.
    supervision.echo_child_output = !options.json;
    (options.json ? std::cerr : std::cout)
        << "rkt test: seed " << base_seed() << " (RKT_SEED=" << base_seed()
        << " reproduces), filter " << (options.filter.empty() ? supervision.gtest_filter : options.filter)
        << (options.kernels.empty() ? "" : ", kernels matching " + kernel_selection_text(options.kernels))
        << ", hidden inputs: " << hidden_inputs().summary() << "\nrkt test: kernels run "
        << isolation_summary() << std::endl;
    ::setenv("RKT_SEED", std::to_string(base_seed()).c_str(), 1);  // One seed for all children.
    const std::optional<SupervisedRun> all_skipped = skipped_for_missing_devices(supervision.gtest_filter);
    if (all_skipped) {
      const std::size_t ended_unused = discard_children_started_ahead();
      (options.json ? std::cerr : std::cout)
          << "rkt test: every selected case needs a device this machine lacks; "
          << all_skipped->cases.size()
          << (ended_unused == 0 ? " skipped without starting a judge child"
                                : " skipped without running a judge child (the one started ahead was "
                                  "ended unused; a ctest entry names its device to avoid it: " +
                                      std::string(kSelectionDeviceVariable) + ")")
          << std::endl;
    }
    const SupervisedRun run = all_skipped ? *all_skipped : run_supervised_with_lent_worker(supervision);
    if (options.json) {
      std::cout << supervised_run_json(run, std::to_string(base_seed()), supervision.gtest_filter);
    } else {
      std::cout << "\n" << summarize(run);
    }
    if (!junit_path.empty()) {
      try {
        // Each kernel's suite shows the declarations its verdict holds under.
        SuiteProperties declared;
        for (const KernelSpec* kernel : registered_kernels()) {
          declared[kernel->full_id()] = declarations_in_force(*kernel);
        }
        write_junit_report(junit_path, run, declared);
      } catch (const std::runtime_error& problem) {
        std::cerr << "rkt test: error: cannot write the JUnit report: " << problem.what() << "\n";
        return 2;
      }
    }
    return supervised_exit_code(run);
  }
  if (command == "filter" || command == "catalog") {
    if (!parse_options(args, command == "filter" ? std::vector<std::string>{"--json", "--task"}
                                                 : std::vector<std::string>{},
                       options, error)) {
      return usage_error(error);
    }
    const std::vector<const TaskSpec*> tasks = tasks_matching(options.task);
    if (tasks.empty()) return usage_error("no registered task matches '" + options.task + "'");
    const auto start = std::chrono::steady_clock::now();
    std::vector<TaskVerdict> verdicts;
    for (const TaskSpec* task : tasks) verdicts.push_back(judge_task(*task));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (command == "catalog") {
      print_task_catalog(std::cout, verdicts);
    } else if (options.json) {
      std::cout << task_verdicts_json(verdicts, seconds);
    } else {
      std::cout << task_verdicts_text(verdicts, seconds);
    }
    return 0;
  }
  if (command == "aoti-spec") {
    if (!parse_options(args, {"--device"}, options, error)) return usage_error(error);
    print_compiled_spec(std::cout, options.device == "cpu" ? Device::cpu : Device::cuda);
    return 0;
  }
  if (command == "twin-inputs") return run_twin_inputs_command(args);
  if (command == "twin-check") return run_twin_check_command(args);
  if (command == "baselines") return run_baselines_command(args);
  if (command == "bench") {
    std::vector<char*> bench_argv = {argv[0]};
    for (int i = 2; i < argc; ++i) bench_argv.push_back(argv[i]);
    int bench_argc = static_cast<int>(bench_argv.size());
    bench_argv.push_back(nullptr);
    return run_google_benchmark(bench_argc, bench_argv.data());
  }
  if (command == "run") {
    if (!parse_options(args,
                       {"--out", "--kernel", "--timeout", "--benchmark-timeout", "--shard", "--replace",
                        "--refuse-declarations"},
                       options, error)) {
      return usage_error(error);
    }
    if (const std::string unknown = unknown_kernel_error(options.kernels); !unknown.empty()) {
      return usage_error(unknown);
    }
    if (options.refuse_declarations) {
      // Before any case runs: a file that lowers its own bar is not judged at all
      // (framework/registry/declaration_policy.h says why).
      std::vector<std::string> refused;
      for (const KernelSpec* kernel : registered_kernels()) {
        if (!kernel_selected(kernel->full_id(), options.kernels)) continue;
        const TaskSpec* task = find_task(kernel->task_id());
        if (task == nullptr) continue;  // registry_errors() named it already
        for (const std::string& sentence : refused_declarations(*kernel, *task)) refused.push_back(sentence);
      }
      if (!refused.empty()) {
        for (const std::string& sentence : refused) {
          std::cerr << "rkt: error: declaration refused: " << sentence << "\n";
        }
        std::cerr << "rkt: error: declaration refused: --refuse-declarations judges no kernel that "
                     "waives a gate, allows an operator or narrows its task's domain\n";
        return 2;
      }
    }
    ::setenv("RKT_SEED", std::to_string(base_seed()).c_str(), 1);
    MainJobOptions job;
    job.executable = own_executable(argv[0]);
    job.output_directory = options.out;
    job.kernel_fragments = options.kernels;
    job.case_timeout_seconds = options.timeout;
    job.benchmark_timeout_seconds = options.benchmark_timeout;
    job.shard = options.shard;
    job.replace_existing = options.replace;
    return run_main_job(job);
  }
  return usage_error("unknown command '" + command +
                     "'; commands: list, test, run, eval, serve, template, compare, merge, filter, catalog, aoti-spec, "
                     "baselines, twin-inputs, twin-check, bench, --help");
}

}  // namespace rkt
