// The `rkt` executable's entry point: the judge. Suites built with rkt_add_suite() compile this
// file with the paths of their kernel library and of rkt-worker; the kernels are not linked in.
#include "framework/command_line.h"

int main(int argc, char** argv) {
  return rkt::run_command_line(argc, argv, {RKT_KERNEL_LIBRARY_PATH, RKT_WORKER_PATH});
}
