// The `rkt` executable's entry point: the judge. Suites built with rkt_add_suite() compile this
// file with the paths of their kernel library and of rkt-worker; the kernels are not linked in.
// Installed with the package (share/RobustKernelTest/), so a user's suite compiles it too.
#include <filesystem>
#include <string>
#include <system_error>

#include "framework/command_line.h"

namespace {

// A judge that `cmake --install` copied finds its kernel library and rkt-worker where the install
// put them, relative to its own executable; a judge in a build tree finds nothing there and uses
// the paths it was built with.
std::string installed_or_built(const char* relative_to_executable, const char* built) {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return built;
  const std::filesystem::path installed = executable.parent_path() / relative_to_executable;
  if (!std::filesystem::exists(installed, error)) return built;
  return installed.lexically_normal().string();
}

}  // namespace

int main(int argc, char** argv) {
  return rkt::run_command_line(
      argc, argv,
      {installed_or_built(RKT_INSTALLED_KERNEL_LIBRARY, RKT_KERNEL_LIBRARY_PATH),
       installed_or_built(RKT_INSTALLED_WORKER, RKT_WORKER_PATH)});
}
