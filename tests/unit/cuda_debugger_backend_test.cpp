// Where the sanitizer cases look for the CUDA debugger back-end, and what they say of it
// (framework/cases/cuda_debugger_backend.h).
#include "framework/cases/cuda_debugger_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace rkt {
namespace {

using ::testing::HasSubstr;

std::string temporary_folder(const char* name) {
  std::string folder = ::testing::TempDir() + name + "XXXXXX";
  return mkdtemp(folder.data()) != nullptr ? folder : "";
}

TEST(CudaDebuggerBackend, TheFirstFolderThatHoldsItIsNamed) {
  const std::string without = temporary_folder("rkt_no_backend_");
  const std::string with = temporary_folder("rkt_backend_");
  ASSERT_FALSE(without.empty());
  ASSERT_FALSE(with.empty());
  std::ofstream(with + "/" + kCudaDebuggerBackendFile) << "";
  const CudaDebuggerBackend found = find_cuda_debugger_backend({without, with, "/nonexistent"});
  EXPECT_EQ(found.path, with + "/" + kCudaDebuggerBackendFile);
  EXPECT_EQ(found.looked_in.size(), 2u) << "the search stops at the first";
  EXPECT_EQ(describe_cuda_debugger_backend(found),
            "the CUDA debugger back-end is at " + found.path);
  std::remove((with + "/" + kCudaDebuggerBackendFile).c_str());
}

TEST(CudaDebuggerBackend, AbsentItSaysWhereItLookedAndWhatThatMeans) {
  const std::string without = temporary_folder("rkt_no_backend_");
  const CudaDebuggerBackend missing = find_cuda_debugger_backend({without, "/nonexistent"});
  EXPECT_EQ(missing.path, "");
  const std::string said = describe_cuda_debugger_backend(missing);
  EXPECT_THAT(said, HasSubstr("is in none of " + without + ", /nonexistent"));
  EXPECT_THAT(said, HasSubstr("needs to stop a kernel at an access it reports"));
}

TEST(CudaDebuggerBackend, TheLoadersFoldersAreSearchedLibraryPathFirstThenTheSystems) {
  const char* before = std::getenv("LD_LIBRARY_PATH");
  const std::string kept = before != nullptr ? before : "";
  setenv("LD_LIBRARY_PATH", "/opt/first:/opt/second", 1);
  const std::vector<std::string> folders = cuda_debugger_backend_directories();
  if (before != nullptr)
    setenv("LD_LIBRARY_PATH", kept.c_str(), 1);
  else
    unsetenv("LD_LIBRARY_PATH");
  const auto at = [&folders](const std::string& folder) {
    for (std::size_t i = 0; i < folders.size(); ++i) {
      if (folders[i] == folder) return static_cast<int>(i);
    }
    return -1;
  };
  ASSERT_GE(at("/opt/first"), 0);
  EXPECT_LT(at("/opt/first"), at("/opt/second"));
  EXPECT_LT(at("/opt/second"), at("/usr/lib/x86_64-linux-gnu"));
}

}  // namespace
}  // namespace rkt
