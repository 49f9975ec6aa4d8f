// The `rkt` executable's entry point. Suites built with rkt_add_suite() link this file with
// their own kernels, so every suite is a full `rkt` tool.
#include "framework/command_line.h"

int main(int argc, char** argv) { return rkt::run_command_line(argc, argv); }
