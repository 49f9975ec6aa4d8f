// `rkt bench`: every kernel and every baseline of its task as a Google Benchmark entry.
#pragma once

namespace rkt {

/// Registers the entries and runs Google Benchmark with the usual --benchmark_* flags
/// (--benchmark_filter, --benchmark_repetitions, --benchmark_out=FILE --benchmark_out_format=json
/// for compare.py). Each iteration is one full measurement by the framework's engine (flushed
/// caches, rotating inputs, the noise stopping rule); its median is the manual time.
int run_google_benchmark(int argc, char** argv);

}  // namespace rkt
