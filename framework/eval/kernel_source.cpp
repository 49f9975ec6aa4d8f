#include "framework/eval/kernel_source.h"

namespace rkt {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool is_cuda_source(const std::string& path) { return ends_with(path, ".cu"); }

bool is_kernel_source(const std::string& path) {
  for (const char* ending : {".cpp", ".cc", ".cxx", ".cu"}) {
    if (ends_with(path, ending)) return true;
  }
  return false;
}

}  // namespace rkt
