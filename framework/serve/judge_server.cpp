#include "framework/serve/judge_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "framework/base/file_access.h"
#include "framework/base/option_parsing.h"
#include "framework/base/utc_time.h"
#include "framework/eval/eval_record.h"
#include "framework/eval/eval_toolchain.h"
#include "framework/eval/kernel_source.h"
#include "framework/eval/library_cache.h"
#include "framework/eval/library_compiler.h"
#include "framework/eval/library_judge.h"
#include "framework/eval/visible_gpus.h"
#include "framework/inputs/seeding.h"
#include "framework/serve/fair_queue.h"
#include "framework/eval/serve_protocol.h"

namespace rkt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One client's connection. Judges write to it from their threads; a client gone away makes every
// write a no-op (MSG_NOSIGNAL: no SIGPIPE for the server).
class Connection {
 public:
  Connection(int fd, std::uint64_t client) : fd_(fd), client_(client) {}
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }
  std::uint64_t client() const { return client_; }
  bool open() const { return open_.load(); }
  void closed() { open_.store(false); }

  void send_line(const std::string& line) {
    const std::lock_guard<std::mutex> hold(writing_);
    if (!open_.load()) return;
    const std::string text = line + "\n";
    for (std::size_t sent = 0; sent < text.size();) {
      const ssize_t count = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) {
        open_.store(false);
        return;
      }
      sent += static_cast<std::size_t>(count);
    }
  }

 private:
  int fd_;
  std::uint64_t client_;
  std::atomic<bool> open_{true};
  std::mutex writing_;
};

struct Job {
  std::shared_ptr<Connection> connection;
  ServeRequest request;
  std::uint64_t number = 0;  ///< the server's count of requests, for folders and log lines
  Clock::time_point queued_at;
};

class JudgeServer {
 public:
  explicit JudgeServer(const ServeOptions& options)
      : options_(options), toolchain_(eval_toolchain(options.eval.worker)) {}

  int serve();

 private:
  void read_requests(std::shared_ptr<Connection> connection);
  void take_request(const std::shared_ptr<Connection>& connection, const std::string& line);
  void judge_jobs(FairQueue<Job>& queue, const std::string& gpu);
  void judge(const Job& job, const std::string& gpu, WarmJudge& warm);
  std::string source_path(const Job& job);
  void keep_record(const EvalRecord& record);

  ServeOptions options_;
  EvalToolchain toolchain_;
  std::string cache_;
  std::int64_t cache_limit_ = 0;  // [bytes]
  FairQueue<Job> cpu_queue_, gpu_queue_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> next_client_{1}, next_request_{1};
  std::mutex records_;  // eval.jsonl
  std::mutex log_;      // our own lines on stdout
};

// Listens on `path` (a stale socket of a dead server is replaced; a live one is refused).
int listen_on(const std::string& path, std::string& error) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    error = "--socket '" + path + "': a Unix socket path has 1 to " +
            std::to_string(sizeof(address.sun_path) - 1) + " characters";
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  struct stat status {};
  if (::lstat(path.c_str(), &status) == 0) {
    if (!S_ISSOCK(status.st_mode)) {
      error = "--socket '" + path + "' exists and is not a socket";
      return -1;
    }
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      error = "another server already listens on '" + path + "'";
      return -1;
    }
    ::unlink(path.c_str());
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  const mode_t previous = ::umask(0177);  // the socket is the owner's alone: 0600
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::umask(previous);
  if (!bound || ::listen(fd, 64) != 0) {
    error = "cannot listen on '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

int JudgeServer::serve() {
  const EvalOptions& eval = options_.eval;
  try {
    cache_ = eval_cache_folder();
    cache_limit_ = eval_cache_limit_bytes();
    make_directories(cache_);
    make_directories(eval.output_directory + "/requests");
    make_directories(eval.output_directory + "/sources");
  } catch (const std::exception& error) {
    std::cerr << "rkt serve: error: " << error.what() << "\n";
    return 2;
  }
  std::string error;
  const int listener = listen_on(options_.socket_path, error);
  if (listener < 0) {
    std::cerr << "rkt serve: error: " << error << "\n";
    return 2;
  }
  // --judges-per-gpu judges on each GPU for .cu files, their benchmarks taking turns
  // (framework/timing/device_lease.h; none visible: as many, whose kernels skip), one for .cpp files.
  const std::vector<std::string> gpus = visible_gpus();
  const bool no_gpu = gpus.empty();
  const int per_gpu = options_.eval.judges_per_gpu > 0 ? options_.eval.judges_per_gpu : judges_per_gpu_by_default();
  std::vector<std::thread> judges;
  for (const std::string& gpu : judge_slots(gpus.size() > 1 ? gpus : std::vector<std::string>{}, per_gpu)) {
    judges.emplace_back([this, gpu] { judge_jobs(gpu_queue_, gpu); });
  }
  judges.emplace_back([this] { judge_jobs(cpu_queue_, ""); });
  {
    const std::lock_guard<std::mutex> hold(log_);
    std::cout << "rkt serve: listening on " << options_.socket_path << " (judges: "
              << per_gpu << (no_gpu ? std::string(" (no GPU visible)") : " on each of " + std::to_string(gpus.size()) + (gpus.size() == 1 ? " GPU" : " GPUs"))
              << " for .cu files, 1 for .cpp files; toolchain: " << toolchain_.origin
              << "), seed " << base_seed() << ", records in " << eval.output_directory << "/eval.jsonl\n"
              << std::flush;
  }
  while (!stop_.load()) {
    pollfd waiting{listener, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, 500);
    if (ready <= 0) continue;
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    auto connection = std::make_shared<Connection>(fd, next_client_++);
    std::thread([this, connection] { read_requests(connection); }).detach();
  }
  cpu_queue_.wake_all();
  gpu_queue_.wake_all();
  for (std::thread& judge : judges) judge.join();
  ::close(listener);
  ::unlink(options_.socket_path.c_str());
  return 0;
}

void JudgeServer::read_requests(std::shared_ptr<Connection> connection) {
  std::string pending;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t count = ::recv(connection->fd(), buffer, sizeof(buffer), 0);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(count));
    for (std::size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      const std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (line.find_first_not_of(" \t\r") != std::string::npos) take_request(connection, line);
    }
    if (pending.size() > kMaxRequestLineBytes) {
      connection->send_line(serve_error_line("", "a request line longer than " +
                                                     std::to_string(kMaxRequestLineBytes) +
                                                     " bytes; the connection is closed"));
      break;
    }
  }
  // Gone (or cut off): its queued requests are dropped; one being judged finishes, its records
  // kept in eval.jsonl.
  connection->closed();
  const std::size_t dropped =
      cpu_queue_.drop_client(connection->client()) + gpu_queue_.drop_client(connection->client());
  if (dropped > 0) {
    const std::lock_guard<std::mutex> hold(log_);
    std::cout << "rkt serve: client " << connection->client() << " went away; dropped its " << dropped
              << " queued request" << (dropped == 1 ? "" : "s") << "\n"
              << std::flush;
  }
}

void JudgeServer::take_request(const std::shared_ptr<Connection>& connection, const std::string& line) {
  std::string id;
  ServeRequest request;
  try {
    request = parse_serve_request(line, id);
  } catch (const std::invalid_argument& error) {
    connection->send_line(serve_error_line(id, error.what()));
    return;
  }
  if (request.ping) {
    connection->send_line(serve_pong_line(id, cpu_queue_.size() + gpu_queue_.size()));
    return;
  }
  if (request.allow_declarations && !options_.eval.allow_declarations) {
    connection->send_line(serve_error_line(
        id, "this server judges no file with declarations (waivers, allowed operators, narrowed "
            "domains); it was not started with --allow-declarations"));
    return;
  }
  Job job;
  job.connection = connection;
  job.request = std::move(request);
  job.number = next_request_++;
  job.queued_at = Clock::now();
  const std::string& name = job.request.file.empty() ? job.request.source_name : job.request.file;
  (is_cuda_source(name) ? gpu_queue_ : cpu_queue_).push(connection->client(), std::move(job));
}

void JudgeServer::judge_jobs(FairQueue<Job>& queue, const std::string& gpu) {
  // This judge's next child judge waits, started, for the next request (warm_judge.h).
  WarmJudge warm(options_.eval.judge);
  warm.start_ahead(gpu);
  for (;;) {
    std::optional<Job> job = queue.pop_wait(stop_);
    if (!job) return;
    if (!job->connection->open()) continue;  // its client went away while it waited
    try {
      judge(*job, gpu, warm);
    } catch (const std::exception& error) {
      job->connection->send_line(serve_error_line(job->request.id, std::string("the server could not judge it: ") +
                                                                     error.what()));
    }
  }
}

// The file a request names, or its text written under the server's folder (the name kept: it
// is part of the cache key, and .cu picks the compiler).
std::string JudgeServer::source_path(const Job& job) {
  if (!job.request.file.empty()) return job.request.file;
  const std::string folder = options_.eval.output_directory + "/sources/" + std::to_string(job.number);
  make_directories(folder);
  const std::string path = folder + "/" + job.request.source_name;
  write_file_atomically(path, job.request.source_text);
  return path;
}

void JudgeServer::keep_record(const EvalRecord& record) {
  const std::lock_guard<std::mutex> hold(records_);
  std::ofstream out(options_.eval.output_directory + "/eval.jsonl", std::ios::app);
  out << eval_record_json(record) << "\n";
}

void JudgeServer::judge(const Job& job, const std::string& gpu, WarmJudge& warm) {
  const auto start = Clock::now();
  const double queued_seconds = std::chrono::duration<double>(start - job.queued_at).count();
  EvalOptions options = options_.eval;
  const ServeRequest& request = job.request;
  options.task = request.task;
  if (request.case_timeout_seconds > 0) options.case_timeout_seconds = request.case_timeout_seconds;
  if (request.benchmark_timeout_seconds > 0) options.benchmark_timeout_seconds = request.benchmark_timeout_seconds;
  if (request.file_timeout_seconds > 0) options.file_timeout_seconds = request.file_timeout_seconds;
  options.allow_declarations = request.allow_declarations;
  const std::string path = source_path(job);
  const std::vector<CompiledSource> compiled = compile_sources({path}, toolchain_, cache_, 1);
  const CompiledSource& source = compiled.front();
  if (!source.key.empty()) prune_library_cache(cache_, cache_limit_, {source.key});
  std::vector<EvalRecord> records;
  if (source.compiled()) {
    JudgeTarget target;
    target.folder = options.output_directory + "/requests/" + std::to_string(job.number);
    target.gpu = gpu;
    target.warm = &warm;
    target.start_next_ahead = true;  // a server expects more
    records = judge_library(options, source, target);
  } else {
    records.push_back(record_of_unjudged(source));
  }
  std::string verdict = records.empty() ? "FAIL" : "pass";
  for (const EvalRecord& record : records) {
    keep_record(record);
    job.connection->send_line(serve_record_line(request.id, record));
    if (record.verdict() == "FAIL") verdict = "FAIL";
    else if (record.verdict() == "skipped" && verdict == "pass") verdict = "skipped";
  }
  const double seconds = seconds_since(start);
  job.connection->send_line(serve_done_line(request.id, records.size(), verdict, seconds, queued_seconds));
  const std::lock_guard<std::mutex> hold(log_);
  std::cout << "rkt serve: request " << job.number << " (client " << job.connection->client()
            << (request.id.empty() ? "" : ", id " + request.id) << "): " << verdict << ", "
            << counted(records.size(), "record") << " of " << path << " in " << seconds << " s (queued "
            << queued_seconds << " s)" << (source.cached ? ", library from the cache" : "")
            << (job.connection->open() ? "" : "; its client went away") << "\n"
            << std::flush;
}

}  // namespace

int run_judge_server(const ServeOptions& options) {
  JudgeServer server(options);
  return server.serve();
}

int run_serve_command(const std::vector<std::string>& args, const std::string& judge,
                      const std::string& worker) {
  std::map<std::string, std::string> values;
  std::string error;
  if (!parse_named_options(args, {"--socket", "--out", "--judges-per-gpu", "--timeout", "--benchmark-timeout", "--file-timeout"},
                           {"--allow-declarations"}, values, error)) {
    return report_usage_error("serve: " + error);
  }
  if (values.count("--socket") == 0) {
    return report_usage_error("serve needs --socket PATH (the Unix socket clients connect to)");
  }
  ServeOptions options;
  options.socket_path = values["--socket"];
  for (const auto& [name, target] : {std::pair<const char*, int*>{"--judges-per-gpu", &options.eval.judges_per_gpu},
                                     {"--timeout", &options.eval.case_timeout_seconds},
                                     {"--benchmark-timeout", &options.eval.benchmark_timeout_seconds},
                                     {"--file-timeout", &options.eval.file_timeout_seconds}}) {
    if (values.count(name) == 0) continue;
    *target = positive_whole_number(values[name]);
    if (*target == 0) {
      return report_usage_error(std::string(name) + " takes a positive whole number, not '" + values[name] + "'");
    }
  }
  options.eval.output_directory =
      values.count("--out") ? values["--out"] : "runs/serve-" + utc_time("%Y%m%dT%H%M%SZ");
  options.eval.allow_declarations = values.count("--allow-declarations") != 0;
  options.eval.judge = judge;
  options.eval.worker = worker;
  return run_judge_server(options);
}

}  // namespace rkt
