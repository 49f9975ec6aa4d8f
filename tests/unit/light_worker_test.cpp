// The worker without LibTorch (framework/worker/kernel_calls.h): a library of view-form kernels
// runs in a worker that never loads LibTorch; a library that links LibTorch, or that was compiled
// against its headers and left its symbols undefined (a tensor-form source built by rkt eval),
// gets LibTorch's calls. What the worker says is read from its description; its verdicts on the
// CPU are the example suite's ctest cases and rkt eval's tests, which run in such workers.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "framework/isolation/worker_process.h"
#include "framework/worker/needed_libraries.h"

namespace rkt {
namespace {

WorkerLaunch worker_for(const std::string& library) {
  WorkerLaunch launch;
  launch.executable = RKT_WORKER_EXECUTABLE;
  launch.library = library;
  return launch;
}

/// Whether the worker's description lists the kernel "task/kernel".
bool describes(const wire::DescribeReply& description, const std::string& id) {
  for (const wire::KernelDescription& kernel : description.kernels) {
    if (kernel.task_id + "/" + kernel.kernel_id == id) return true;
  }
  return false;
}

TEST(LightWorker, AViewFormLibraryRunsWithoutLibTorch) {
  WorkerProcess worker(worker_for(RKT_EXAMPLE_LIBRARY));
  const wire::DescribeReply& description = worker.description();
  EXPECT_EQ(description.load_error, "");
  EXPECT_FALSE(description.kernels.empty());
  EXPECT_FALSE(description.libtorch_loaded)
      << "the example suite's kernels are view-form: nothing in the worker needs LibTorch";
}

TEST(LightWorker, TheShippedKernelsRunWithoutLibTorch) {
  WorkerProcess worker(worker_for(RKT_SHIPPED_LIBRARY));
  const wire::DescribeReply& description = worker.description();
  EXPECT_EQ(description.load_error, "");
  EXPECT_TRUE(describes(description, "relu/cpu_loops"));
  EXPECT_FALSE(description.libtorch_loaded)
      << "a kernel file under kernels/ includes LibTorch's headers: every `rkt test` and `rkt run` "
         "worker of the shipped suite now loads LibTorch; tensor-form kernels belong in a suite "
         "of their own (examples/tensor_form_kernel.cpp)";
}

TEST(LightWorker, TheTensorFormExampleGetsLibTorch) {
  WorkerProcess worker(worker_for(RKT_TENSOR_FORM_EXAMPLE_LIBRARY));
  const wire::DescribeReply& description = worker.description();
  EXPECT_EQ(description.load_error, "");
  EXPECT_TRUE(describes(description, "rmsnorm/cpu_aten_ops"));
  EXPECT_TRUE(description.libtorch_loaded);
}

TEST(LightWorker, ALibraryLinkedToLibTorchGetsIt) {
  WorkerProcess worker(worker_for(RKT_ADVERSARIES_LIBRARY));
  EXPECT_EQ(worker.description().load_error, "");
  EXPECT_TRUE(worker.description().libtorch_loaded);
}

TEST(LightWorker, LibTorchAmongALibrarysDependenciesIsReadFromItsFile) {
  const std::vector<std::string> needed = needed_libraries(RKT_ADVERSARIES_LIBRARY);
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libtorch.so"), needed.end())
      << ::testing::PrintToString(needed);
  EXPECT_TRUE(links_libtorch(RKT_ADVERSARIES_LIBRARY));
  EXPECT_FALSE(needed_libraries(RKT_EXAMPLE_LIBRARY).empty())
      << "it links the C++ library at least";
  EXPECT_FALSE(links_libtorch(RKT_EXAMPLE_LIBRARY));
  // Compiled against LibTorch's headers, not linked to it: found by dlopen's error instead.
  EXPECT_FALSE(links_libtorch(RKT_UNLINKED_TENSOR_FORM_LIBRARY));
  EXPECT_TRUE(needed_libraries(__FILE__).empty()) << "not an ELF file";
  EXPECT_TRUE(needed_libraries("/nonexistent/library.so").empty());
  // A dynamic section whose size lies far past the file's end (2^62 bytes): refused, and nothing
  // allocated for it (a vector of that size would throw).
  const std::string forged = ::testing::TempDir() + "rkt_forged_elf.so";
  {
    Elf64_Ehdr header{};
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_shoff = sizeof(Elf64_Ehdr);
    header.e_shentsize = sizeof(Elf64_Shdr);
    header.e_shnum = 2;
    Elf64_Shdr sections[2]{};
    sections[0].sh_type = SHT_DYNAMIC;
    sections[0].sh_link = 1;
    sections[0].sh_size = std::uint64_t{1} << 62;
    sections[1].sh_type = SHT_STRTAB;
    sections[1].sh_size = 1;
    std::ofstream file(forged, std::ios::binary);
    file.write(reinterpret_cast<const char*>(&header), sizeof header);
    file.write(reinterpret_cast<const char*>(sections), sizeof sections);
  }
  EXPECT_TRUE(needed_libraries(forged).empty());
}

TEST(LightWorker, ATensorFormLibraryNotLinkedToLibTorchFindsItsSymbols) {
  WorkerProcess worker(worker_for(RKT_UNLINKED_TENSOR_FORM_LIBRARY));
  const wire::DescribeReply& description = worker.description();
  EXPECT_EQ(description.load_error, "");
  EXPECT_TRUE(description.libtorch_loaded);
  EXPECT_TRUE(describes(description, "relu/unlinked_tensor_form"));
}

TEST(LightWorker, AWorkerStartedAheadStaysLightForAViewFormLibrary) {
  std::unique_ptr<WorkerProcess> worker = WorkerProcess::launch_awaiting_library(worker_for(""));
  worker->give_library(RKT_EXAMPLE_LIBRARY);
  EXPECT_EQ(worker->description().load_error, "");
  EXPECT_FALSE(worker->description().libtorch_loaded);
}

TEST(LightWorker, AWorkerStartedAheadLoadsLibTorchForALibraryThatNeedsIt) {
  std::unique_ptr<WorkerProcess> worker = WorkerProcess::launch_awaiting_library(worker_for(""));
  worker->give_library(RKT_ADVERSARIES_LIBRARY);
  EXPECT_EQ(worker->description().load_error, "");
  EXPECT_TRUE(worker->description().libtorch_loaded);
}

TEST(LightWorker, LightWorkerZeroGivesEveryWorkerLibTorch) {
  ::setenv(kLightWorkerVariable, "0", 1);
  WorkerProcess worker(worker_for(RKT_EXAMPLE_LIBRARY));
  ::unsetenv(kLightWorkerVariable);
  EXPECT_EQ(worker.description().load_error, "");
  EXPECT_TRUE(worker.description().libtorch_loaded);
}

}  // namespace
}  // namespace rkt
