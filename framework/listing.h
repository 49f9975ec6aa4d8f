// `rkt list`: the registered tasks, kernels and the cases each kernel expands into.
#pragma once

#include <ostream>
#include <string>

namespace rkt {

void print_listing_text(std::ostream& out);
/// {"tasks":[{"id",...}], "kernels":[{"id","task","device","precision","cases":[...]}]}
void print_listing_json(std::ostream& out);
/// A CMake script of add_test() calls: one ctest test per kernel and label group, each running
/// `executable test --filter ...` under supervision, labelled with the group and the device.
void print_ctest_script(std::ostream& out, const std::string& executable);

}  // namespace rkt
