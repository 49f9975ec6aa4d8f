// Kernels that attack the timing cross-check end to end (issue 11).
//
// relu/forge_slow_clock computes relu correctly but
// slowly (kRealCallMilliseconds of work per call) and, on its first call, rewrites the process's
// import slots for clock_gettime so that every monotonic clock in the process runs
// kClockSlowdown times slower. The process that times it (the worker, or the judge itself when
// run --in-process) then claims a tenth of the real time. Isolated, the judge's own clock sees
// the request take the real time and refuses the times; in-process nothing checks the clock,
// and the forged time stands: proof that the attack is real.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

#include "rkt/kernel.h"

namespace {

// Real work per call, much more than the cross-check's allowance for one call: a quarter of a
// cache flush, about 15 ms on a machine with a 300 MB last-level cache, and more while other jobs
// load the machine (the judge then re-measures the flush: the 1.35 s hidden per request of 10
// calls would need flushes nine times slower than on an idle machine to be excused).
constexpr double kRealCallMilliseconds = 150;
constexpr std::int64_t kClockSlowdown = 10;

void write_relu(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.input(0).numel(); ++i) y[i] = x[i] > 0 ? x[i] : 0;
}

std::int64_t real_nanoseconds(clockid_t clock) {
  timespec now{};
  ::syscall(SYS_clock_gettime, clock, &now);
  return std::int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

std::int64_t forged_origin_ns = 0;

// Monotonic clocks run kClockSlowdown times slower from the moment of the patch on.
int slow_clock_gettime(clockid_t clock, timespec* result) {
  const std::int64_t real = real_nanoseconds(clock);
  std::int64_t reported = real;
  if (clock == CLOCK_MONOTONIC || clock == CLOCK_MONOTONIC_RAW || clock == CLOCK_BOOTTIME) {
    reported = forged_origin_ns + (real - forged_origin_ns) / kClockSlowdown;
  }
  result->tv_sec = reported / 1000000000;
  result->tv_nsec = reported % 1000000000;
  return 0;
}

// Points `slot` (an import slot of a loaded object) at slow_clock_gettime.
void overwrite_slot(std::uintptr_t slot) {
  const long page = ::sysconf(_SC_PAGESIZE);
  void* start = reinterpret_cast<void*>(slot & ~static_cast<std::uintptr_t>(page - 1));
  ::mprotect(start, static_cast<std::size_t>(page) * 2, PROT_READ | PROT_WRITE);
  *reinterpret_cast<void**>(slot) = reinterpret_cast<void*>(&slow_clock_gettime);
}

// Every relocation of every loaded object that imports clock_gettime (PLT and GOT slots alike).
int patch_object(dl_phdr_info* info, std::size_t, void*) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return 0;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* tables[2] = {nullptr, nullptr};
  std::size_t sizes[2] = {0, 0};
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    switch (entry->d_tag) {
      case DT_SYMTAB: symbols = reinterpret_cast<const ElfW(Sym)*>(entry->d_un.d_ptr); break;
      case DT_STRTAB: names = reinterpret_cast<const char*>(entry->d_un.d_ptr); break;
      case DT_JMPREL: tables[0] = reinterpret_cast<const ElfW(Rela)*>(entry->d_un.d_ptr); break;
      case DT_PLTRELSZ: sizes[0] = entry->d_un.d_val; break;
      case DT_RELA: tables[1] = reinterpret_cast<const ElfW(Rela)*>(entry->d_un.d_ptr); break;
      case DT_RELASZ: sizes[1] = entry->d_un.d_val; break;
      default: break;
    }
  }
  if (symbols == nullptr || names == nullptr) return 0;
  for (int t = 0; t < 2; ++t) {
    if (tables[t] == nullptr) continue;
    for (std::size_t r = 0; r < sizes[t] / sizeof(ElfW(Rela)); ++r) {
      const ElfW(Rela)& relocation = tables[t][r];
      const auto type = ELF64_R_TYPE(relocation.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      const ElfW(Sym)& symbol = symbols[ELF64_R_SYM(relocation.r_info)];
      if (std::strcmp(names + symbol.st_name, "clock_gettime") == 0) {
        overwrite_slot(info->dlpi_addr + relocation.r_offset);
      }
    }
  }
  return 0;
}

void slow_down_the_clock() {
  forged_origin_ns = real_nanoseconds(CLOCK_MONOTONIC);
  ::dl_iterate_phdr(&patch_object, nullptr);
}

void forge_slow_clock(rkt::KernelCall& call) {
  static std::once_flag patched;
  std::call_once(patched, slow_down_the_clock);
  const std::int64_t until = real_nanoseconds(CLOCK_MONOTONIC) +
                             static_cast<std::int64_t>(kRealCallMilliseconds * 1e6);
  do {
    write_relu(call);
  } while (real_nanoseconds(CLOCK_MONOTONIC) < until);
}

// relu/hog_between_calls: correct relu, and from its first call on a thread of its own spins
// forever, so that the machine is busy whenever the judge measures what an empty request costs
// (the calibration, or a re-measurement under load): an inflated empty request would let kernel
// time hide in the allowance. The judge sees the worker using the processor while it should be
// idle and refuses the times.
void hog_between_calls(rkt::KernelCall& call) {
  static std::once_flag started;
  std::call_once(started, [] {
    std::thread([] {
      volatile std::uint64_t spins = 0;
      for (;;) spins = spins + 1;
    }).detach();
  });
  write_relu(call);
}

// relu/honest_after_hog: an honest relu registered after relu/hog_between_calls, so that one
// `rkt bench` process times it after the hog was refused: it must get a clean calibration and a
// worker without the hog's thread.
void honest_after_hog(rkt::KernelCall& call) { write_relu(call); }

}  // namespace

ROBUST_KERNEL_TEST(relu, forge_slow_clock, forge_slow_clock);
ROBUST_KERNEL_TEST(relu, hog_between_calls, hog_between_calls);
ROBUST_KERNEL_TEST(relu, honest_after_hog, honest_after_hog);
