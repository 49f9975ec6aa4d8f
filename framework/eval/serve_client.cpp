#include "framework/eval/serve_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>

#include "framework/eval/serve_protocol.h"

namespace rkt {
namespace {

using Json = nlohmann::ordered_json;

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char here[PATH_MAX];
  return ::getcwd(here, sizeof(here)) != nullptr ? std::string(here) + "/" + path : path;
}

int connect_to(const std::string& path, std::string& error) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    error = "--server '" + path + "' is not a Unix socket path";
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    error = "no rkt serve answers on '" + path + "': " + std::strerror(errno) +
            " (start one with: rkt serve --socket " + path + ")";
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& text) {
  for (std::size_t sent = 0; sent < text.size();) {
    const ssize_t count = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    sent += static_cast<std::size_t>(count);
  }
  return true;
}

// A file given that could not be used at all: rkt eval's exit 2.
bool unusable_file(const std::string& status) {
  static const std::set<std::string> unusable = {"missing_file", "unreadable_file", "empty_file",
                                                 "file_too_large", "not_a_kernel_source"};
  return unusable.count(status) != 0;
}

// "pass  FILE  task/kernel" or "FAIL  FILE  status: message", as rkt eval's progress says it.
std::string progress_line(const Json& record) {
  const std::string verdict = record.value("verdict", "FAIL");
  const std::string file = record.value("file", "");
  if (!record.contains("kernel")) {
    const std::string message = record.value("message", "");
    return verdict + "  " + file + "  " + record.value("status", "") + ": " + message.substr(0, message.find('\n'));
  }
  std::string line = verdict + "  " + file + "  " + record.value("task", "") + "/" + record.value("kernel", "");
  const Json& failure = record.contains("first_failure") ? record.at("first_failure") : Json();
  if (failure.is_object()) {
    const std::string message = failure.value("message", "");
    line += "\n      first failure: " + failure.value("case", "") + " " + failure.value("status", "") + "\n      reproduce: " +
            failure.value("reproduce", "");
  }
  return line;
}

}  // namespace

int run_eval_through_server(const std::string& socket_path, const EvalOptions& options) {
  std::ostream& progress = options.json ? std::cerr : std::cout;
  std::string error;
  const int fd = connect_to(socket_path, error);
  if (fd < 0) {
    std::cerr << "rkt eval: error: " << error << "\n";
    return 2;
  }
  std::string requests;
  for (std::size_t i = 0; i < options.sources.size(); ++i) {
    requests += serve_judge_request_line(std::to_string(i), absolute(options.sources[i]), options) + "\n";
  }
  progress << "rkt eval: " << options.sources.size() << (options.sources.size() == 1 ? " file" : " files")
           << " sent to the server on " << socket_path << "\n"
           << std::flush;
  if (!send_all(fd, requests)) {
    std::cerr << "rkt eval: error: the server on " << socket_path << " closed the connection\n";
    ::close(fd);
    return 2;
  }
  std::set<std::string> open_requests;
  for (std::size_t i = 0; i < options.sources.size(); ++i) open_requests.insert(std::to_string(i));
  bool failed = false, refused = false;
  std::string pending;
  char buffer[1 << 16];
  while (!open_requests.empty()) {
    const ssize_t count = ::recv(fd, buffer, sizeof(buffer), 0);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(count));
    for (std::size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      Json line;
      try {
        line = Json::parse(pending.substr(0, end));
      } catch (const nlohmann::json::exception&) {
        line = Json::object();
      }
      pending.erase(0, end + 1);
      const std::string id = line.contains("id") && line.at("id").is_string() ? line.at("id").get<std::string>() : "";
      if (line.contains("record")) {
        const Json& record = line.at("record");
        if (options.json) std::cout << record.dump() << "\n" << std::flush;
        progress << "rkt eval: " << progress_line(record) << "\n" << std::flush;
        failed = failed || record.value("verdict", "FAIL") == "FAIL";
        refused = refused || unusable_file(record.value("status", ""));
      } else if (line.contains("error")) {
        const std::size_t index = id.empty() ? options.sources.size() : std::strtoul(id.c_str(), nullptr, 10);
        std::cerr << "rkt eval: error: the server refused "
                  << (index < options.sources.size() ? options.sources[index] : "a request (id " + id + ")")
                  << ": " << line.value("error", "") << "\n";
        refused = true;
        open_requests.erase(id);
      } else if (line.contains("done")) {
        open_requests.erase(id);
      }
    }
  }
  ::close(fd);
  if (!open_requests.empty()) {
    std::cerr << "rkt eval: error: the server on " << socket_path << " went away with "
              << open_requests.size() << " file(s) not judged\n";
    return 2;
  }
  return refused ? 2 : failed ? 1 : 0;
}

}  // namespace rkt
