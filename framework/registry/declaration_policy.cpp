#include "framework/registry/declaration_policy.h"

#include <cstdlib>
#include <fstream>

#include "rkt/precision.h"

namespace rkt {
namespace {

// "file:line" of the first line at or after the kernel's registration that calls `method` (the
// fluent declarations follow the ROBUST_KERNEL_TEST line), or of the registration itself when
// the source cannot be read or does not say it there.
std::string declaration_place(const KernelSpec& kernel, const std::string& method,
                              const std::string& argument) {
  std::string path = kernel.file();
  const char* folder = std::getenv(kKernelSourceFolderVariable);
  if (folder != nullptr && *folder != '\0' && !path.empty() && path[0] != '/') {
    path = std::string(folder) + "/" + path;
  }
  std::ifstream source(path);
  int number = 0;
  for (std::string line; std::getline(source, line);) {
    if (++number < kernel.line()) continue;
    if (line.find(method) != std::string::npos &&
        (argument.empty() || line.find(argument) != std::string::npos)) {
      return kernel.file() + ":" + std::to_string(number);
    }
    // The registration's statement ends at its ';'; a later kernel's lines are not this one's.
    if (number > kernel.line() && line.find("ROBUST_KERNEL_TEST") != std::string::npos) break;
  }
  return kernel.file() + ":" + std::to_string(kernel.line());
}

}  // namespace

bool narrows_domain(const DimRestriction& restriction, const TaskSpec& task) {
  std::int64_t low = 1, high = 1;
  const auto domain = task.domains().find(restriction.dim);
  if (domain != task.domains().end()) {
    low = domain->second.min;
    high = domain->second.max;
  } else {
    // No domain: the dim takes its test sizes only (the CPU's and the GPU's).
    const auto small = task.small_dims().find(restriction.dim);
    const auto large = task.default_dims().find(restriction.dim);
    low = small != task.small_dims().end() ? small->second : 1;
    high = large != task.default_dims().end() ? large->second : low;
    if (low > high) std::swap(low, high);
    return !restriction.admits(low) || !restriction.admits(high);
  }
  switch (restriction.kind) {
    case DimRestriction::Kind::multiple_of:
      return restriction.value > 1 && (high > low || low % restriction.value != 0);
    case DimRestriction::Kind::at_least: return restriction.value > low;
    case DimRestriction::Kind::at_most: return restriction.value < high;
  }
  return true;
}

std::vector<std::string> refused_declarations(const KernelSpec& kernel, const TaskSpec& task) {
  std::vector<std::string> refused;
  const std::string who = "kernel '" + kernel.full_id() + "' (";
  for (const auto& [gate, reason] : kernel.waived_gates()) {
    refused.push_back(who + declaration_place(kernel, "waive_gate", "") + ") waives gate '" +
                      to_string(gate) + "' (\"" + reason + "\")");
  }
  for (const std::string& name : kernel.allowed_operators()) {
    refused.push_back(who + declaration_place(kernel, "allow_operators", "") +
                      ") allows the operator '" + name + "'");
  }
  for (const DimRestriction& restriction : kernel.supported_dims()) {
    if (!narrows_domain(restriction, task)) continue;
    refused.push_back(who + declaration_place(kernel, "supports", "") + ") declares \"" +
                      restriction.describe() + "\", narrower than task '" + task.id() +
                      "''s domain of " + restriction.dim);
  }
  return refused;
}

std::vector<std::pair<std::string, std::string>> declarations_in_force(const KernelSpec& kernel) {
  std::vector<std::pair<std::string, std::string>> in_force = {
      {"precision", to_string(kernel.precision())}, {"accumulates_in", to_string(kernel.accumulation())}};
  for (const auto& [gate, reason] : kernel.waived_gates()) {
    in_force.emplace_back("waive_gate", std::string(to_string(gate)) + ": " + reason);
  }
  for (const std::string& name : kernel.allowed_operators()) in_force.emplace_back("allow_operators", name);
  for (const DimRestriction& restriction : kernel.supported_dims()) {
    in_force.emplace_back("supports", restriction.describe());
  }
  if (kernel.alignment_bytes() > 0) {
    in_force.emplace_back("requires_alignment", std::to_string(kernel.alignment_bytes()));
  }
  return in_force;
}

}  // namespace rkt
