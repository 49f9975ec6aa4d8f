// The device's measured ceilings, taken once per run: copy bandwidth and matmul rates. They set
// the physical floor under which a time is impossible, and the roofline fractions.
#pragma once

#include <string>

#include "rkt/precision.h"
#include "rkt/tensor_view.h"

namespace rkt {

struct DevicePeaks {
  std::string device_name;
  double copy_bytes_per_second = 0;   // [B/s] device-to-device copy, read + write counted
  double fp32_flops_per_second = 0;   // [FLOP/s] float32 matmul, TF32 off
  double tf32_flops_per_second = 0;   // [FLOP/s] float32 matmul, TF32 on (CUDA)
  double bf16_flops_per_second = 0;   // [FLOP/s] bfloat16 matmul (CUDA)
  double harness_overhead_ms = 0;     // [ms] median time the engine measures for an empty call
};

/// Measured on first use for `device`, then cached for the process. When `cache_file` is given,
/// peaks are read from it if it exists, else measured and written to it, so that the processes of
/// one run share one measurement.
const DevicePeaks& measured_peaks(Device device, const std::string& cache_file = "");

/// "key=value" lines, and back (throws std::invalid_argument on a malformed file).
std::string serialize(const DevicePeaks& peaks);
DevicePeaks deserialize_device_peaks(const std::string& text);

/// The peak rate that applies to a kernel claiming `precision`.
double peak_flops_per_second(const DevicePeaks& peaks, Precision precision);

/// The shortest time the hardware allows for `bytes` moved and `flops` performed.
double physical_floor_ms(const DevicePeaks& peaks, Precision precision, double bytes,
                         double flops);

}  // namespace rkt
