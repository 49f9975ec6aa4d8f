#include "framework/benchmarks/benchmark_files.h"

namespace rkt {

std::string benchmark_record_path(const std::string& directory, const KernelSpec& kernel) {
  std::string name = kernel.full_id();
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return directory + "/" + name + ".benchmark";
}

std::string peaks_path(const std::string& directory, Device device) {
  return directory + "/peaks_" + to_string(device) + ".txt";
}

std::string empty_request_path(const std::string& directory, Device device) {
  return directory + "/empty_request_" + to_string(device) + ".txt";
}

}  // namespace rkt
