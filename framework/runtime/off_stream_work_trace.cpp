#include "framework/runtime/off_stream_work_trace.h"

#include <cstdlib>
#include <limits>
#include <mutex>
#include <random>
#include <type_traits>

#if RKT_WITH_CUPTI
#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <dlfcn.h>
#endif

namespace rkt {

std::optional<OffStreamOverrun> off_stream_overrun(const std::vector<DeviceActivity>& activities,
                                                   std::uint32_t stream) {
  const DeviceActivity* marker = nullptr;
  for (const DeviceActivity& activity : activities) {
    if (!activity.stream_end_marker || activity.stream != stream) continue;
    if (marker == nullptr || activity.start_nanoseconds >= marker->start_nanoseconds)
      marker = &activity;
  }
  if (marker == nullptr) return std::nullopt;
  OffStreamOverrun overrun;
  for (const DeviceActivity& activity : activities) {
    if (activity.stream == stream || activity.end_nanoseconds <= marker->start_nanoseconds)
      continue;
    const double past =
        static_cast<double>(activity.end_nanoseconds - marker->start_nanoseconds) / 1e6;
    if (past > overrun.milliseconds) {
      overrun.milliseconds = past;
      overrun.latest = activity.what;
    }
  }
  return overrun;
}

#if RKT_WITH_CUPTI
namespace {

/// The marker: a memset over a length drawn per trace (a multiple of 4 bytes up to
/// kMarkerMostBytes), so that a kernel's own memset is not taken for it by chance.
constexpr int kMarkerValue = 0xa5;
constexpr std::size_t kMarkerMostBytes = 4096;         // [bytes]
constexpr std::size_t kActivityBufferBytes = 1 << 20;  // [bytes] one CUPTI record buffer
constexpr CUpti_ActivityKind kTracedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMCPY2};

/// The CUPTI entry points the trace calls, resolved from the loaded library.
struct CuptiApi {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiGetStreamIdEx) stream_id = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  std::string unavailable;  ///< "" when every entry point was found
};

CuptiApi load_cupti() {
  CuptiApi api;
  void* library = nullptr;
  // LibTorch's libtorch_cpu needs libcupti, so it is normally loaded already; a worker without
  // LibTorch loads the one found at configure time (RKT_CUPTI_LIBRARY), or whichever the loader
  // finds by name.
  for (const char* name : {"libcupti.so.13", "libcupti.so"}) {
    library = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (library != nullptr) break;
  }
  const char* const candidates[] = {RKT_CUPTI_LIBRARY, "libcupti.so.13", "libcupti.so"};
  for (const char* name : candidates) {
    if (library == nullptr && name[0] != '\0') library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  }
  if (library == nullptr) {
    const char* why = dlerror();
    api.unavailable = "CUPTI (libcupti.so.13) could not be loaded: " + std::string(why ? why : "?");
    return api;
  }
  const auto resolve = [&](auto& entry, const char* symbol) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(library, symbol));
    if (entry == nullptr && api.unavailable.empty()) {
      api.unavailable = std::string("the loaded CUPTI has no ") + symbol;
    }
  };
  resolve(api.register_callbacks, "cuptiActivityRegisterCallbacks");
  resolve(api.enable, "cuptiActivityEnable");
  resolve(api.disable, "cuptiActivityDisable");
  resolve(api.flush_all, "cuptiActivityFlushAll");
  resolve(api.next_record, "cuptiActivityGetNextRecord");
  resolve(api.stream_id, "cuptiGetStreamIdEx");
  resolve(api.result_string, "cuptiGetResultString");
  return api;
}

const CuptiApi& cupti() {
  static const CuptiApi api = load_cupti();
  return api;
}

std::string describe(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cupti().result_string(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown";
  return std::string(call) + " failed: " + text + " (" + std::to_string(result) + ")";
}

/// The records of the trace in progress; buffers completed while none is are dropped.
struct Collection {
  std::mutex mutex;
  bool collecting = false;
  std::size_t marker_bytes = 0;
  std::vector<DeviceActivity> records;
};

Collection& collection() {
  static Collection* shared = new Collection;  // CUPTI may call back during exit
  return *shared;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* most_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  *size = *buffer == nullptr ? 0 : kActivityBufferBytes;
  *most_records = 0;  // as many as fit
}

DeviceActivity read_record(const CUpti_Activity* record, std::size_t marker_bytes, bool& known) {
  DeviceActivity activity;
  known = true;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      activity = {kernel->streamId, kernel->start, kernel->end, false,
                  std::string("kernel ") + (kernel->name != nullptr ? kernel->name : "?")};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      activity = {copy->streamId, copy->start, copy->end, false, "copy"};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      activity = {copy->streamId, copy->start, copy->end, false, "peer copy"};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      // Matched by its length alone: how a record states the value set is not the trace's concern.
      activity = {set->streamId, set->start, set->end, set->bytes == marker_bytes, "set"};
      break;
    }
    default:
      known = false;
  }
  return activity;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  Collection& shared = collection();
  {
    const std::lock_guard<std::mutex> lock(shared.mutex);
    CUpti_Activity* record = nullptr;
    while (shared.collecting &&
           cupti().next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      bool known = false;
      DeviceActivity activity = read_record(record, shared.marker_bytes, known);
      if (known) shared.records.push_back(std::move(activity));
    }
  }
  std::free(buffer);
}

void disable_traced_kinds() {
  for (CUpti_ActivityKind kind : kTracedKinds) cupti().disable(kind);
}

/// The device buffer markers are written to (allocated once; nullptr when that failed).
void* marker_buffer() {
  static void* buffer = [] {
    void* allocated = nullptr;
    return cudaMalloc(&allocated, kMarkerMostBytes) == cudaSuccess ? allocated : nullptr;
  }();
  return buffer;
}

CUptiResult register_buffers_once() {
  static const CUptiResult registered = cupti().register_callbacks(buffer_requested, buffer_completed);
  return registered;
}

/// What CUPTI threw (it throws C++ exceptions through its C interface: a boost::filesystem error
/// where /sys cannot be read).
std::string thrown(const char* during) {
  try {
    throw;
  } catch (const std::exception& error) {
    return std::string("CUPTI threw while ") + during + ": " + error.what();
  } catch (...) {
    return std::string("CUPTI threw while ") + during;
  }
}

}  // namespace

std::string prepare_off_stream_tracing() {
  // Turned off, CUPTI is not even loaded (the judge passes the variable on to its workers).
  if (const std::string why_not = off_stream_tracing_unavailable_reason(); !why_not.empty()) {
    return why_not;
  }
  try {
    if (const CUptiResult result = register_buffers_once(); result != CUPTI_SUCCESS) {
      return describe("cuptiActivityRegisterCallbacks", result);
    }
    if (marker_buffer() == nullptr) return "the marker's device buffer could not be allocated";
    for (CUpti_ActivityKind kind : kTracedKinds) {
      if (const CUptiResult result = cupti().enable(kind); result != CUPTI_SUCCESS) {
        disable_traced_kinds();
        return describe("cuptiActivityEnable", result);
      }
    }
    cudaMemsetAsync(marker_buffer(), 0, 4, nullptr);
    cudaDeviceSynchronize();
    cudaGetLastError();
    cupti().flush_all(0);
    disable_traced_kinds();
    cupti().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // Dropped: nothing is collecting.
  } catch (...) {
    return thrown("starting");
  }
  return "";
}

std::string off_stream_tracing_unavailable_reason() {
  if (const char* setting = std::getenv(kOffStreamTraceVariable);
      setting != nullptr && std::string(setting) == "0") {
    return std::string(kOffStreamTraceVariable) + "=0 turned the trace off";
  }
  return cupti().unavailable;
}

OffStreamWorkTrace::OffStreamWorkTrace(void* stream) : stream_(stream) {
  try {
    start();
  } catch (...) {
    untraced_reason_ = thrown("starting");
    try {
      disable_traced_kinds();
    } catch (...) {
    }
    stop();
  }
}

void OffStreamWorkTrace::start() {
  const CuptiApi& api = cupti();
  if (!api.unavailable.empty()) {
    untraced_reason_ = api.unavailable;
    return;
  }
  if (const CUptiResult registered = register_buffers_once(); registered != CUPTI_SUCCESS) {
    untraced_reason_ = describe("cuptiActivityRegisterCallbacks", registered);
    return;
  }
  if (const CUptiResult result =
          api.stream_id(nullptr, static_cast<CUstream>(stream_), 0, &stream_id_);
      result != CUPTI_SUCCESS) {
    untraced_reason_ = describe("cuptiGetStreamIdEx", result);
    return;
  }
  if (marker_buffer() == nullptr) {
    untraced_reason_ = "the marker's device buffer could not be allocated";
    return;
  }
  Collection& shared = collection();
  {
    const std::lock_guard<std::mutex> lock(shared.mutex);
    if (shared.collecting) {
      untraced_reason_ = "another trace of device work is running in this process";
      return;
    }
  }
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // Records of earlier work are dropped.
  {
    const std::lock_guard<std::mutex> lock(shared.mutex);
    std::random_device entropy;
    shared.marker_bytes = 4 * (1 + entropy() % (kMarkerMostBytes / 4));
    shared.records.clear();
    shared.collecting = true;
  }
  for (CUpti_ActivityKind kind : kTracedKinds) {
    if (const CUptiResult result = api.enable(kind); result != CUPTI_SUCCESS) {
      untraced_reason_ = describe("cuptiActivityEnable", result);
      disable_traced_kinds();
      const std::lock_guard<std::mutex> lock(shared.mutex);
      shared.collecting = false;
      return;
    }
  }
  recording_ = true;
}

OffStreamWorkTrace::~OffStreamWorkTrace() { stop(); }

void OffStreamWorkTrace::stop() noexcept {
  try {
    if (recording_) disable_traced_kinds();
  } catch (...) {
  }
  recording_ = false;
  Collection& shared = collection();
  const std::lock_guard<std::mutex> lock(shared.mutex);
  shared.collecting = false;
  shared.records.clear();
}

void OffStreamWorkTrace::mark_stream_end() {
  if (!recording_) return;
  const std::size_t bytes = [] {
    const std::lock_guard<std::mutex> lock(collection().mutex);
    return collection().marker_bytes;
  }();
  if (cudaMemsetAsync(marker_buffer(), kMarkerValue, bytes, static_cast<cudaStream_t>(stream_)) !=
      cudaSuccess) {
    cudaGetLastError();
    untraced_reason_ = "the stream's end marker could not be queued";
  }
}

std::optional<OffStreamOverrun> OffStreamWorkTrace::finish() {
  if (!recording_) return std::nullopt;
  try {
    cupti().flush_all(0);
    disable_traced_kinds();
    cupti().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  } catch (...) {
    untraced_reason_ = thrown("reading the records");
    stop();
    return std::nullopt;
  }
  std::vector<DeviceActivity> records;
  {
    Collection& shared = collection();
    const std::lock_guard<std::mutex> lock(shared.mutex);
    shared.collecting = false;
    records.swap(shared.records);
  }
  recording_ = false;
  if (!untraced_reason_.empty()) return std::nullopt;
  std::optional<OffStreamOverrun> overrun = off_stream_overrun(records, stream_id_);
  if (!overrun) {
    // The trace started and the marker was queued: only something in the process that changed
    // CUPTI's state (the kernel) keeps its record away.
    overrun = OffStreamOverrun{std::numeric_limits<double>::infinity(),
                               "the record of the stream's end marker is missing (" +
                                   std::to_string(records.size()) +
                                   " records came back): something in the process changed "
                                   "CUPTI's state"};
  }
  return overrun;
}

#else  // !RKT_WITH_CUPTI

std::string off_stream_tracing_unavailable_reason() {
  return "this build has no CUPTI headers (CUDA off, or cupti_activity.h not found at configure "
         "time)";
}

OffStreamWorkTrace::OffStreamWorkTrace(void* stream)
    : stream_(stream), untraced_reason_(off_stream_tracing_unavailable_reason()) {}

OffStreamWorkTrace::~OffStreamWorkTrace() = default;

std::string prepare_off_stream_tracing() { return off_stream_tracing_unavailable_reason(); }

void OffStreamWorkTrace::mark_stream_end() {}

std::optional<OffStreamOverrun> OffStreamWorkTrace::finish() { return std::nullopt; }

#endif

}  // namespace rkt
