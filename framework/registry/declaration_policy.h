// What a kernel file declares about itself that lowers its own bar, and which of it a file from
// an untrusted source (`rkt eval`, a generation loop nobody reviews) may declare.
//
// Why a policy at all: in a kernel engineer's repository, code review sees a `waive_gate`, an
// `allow_operators` or a `supports` line. In a file a model wrote, nobody does: a relu that
// memoises per buffer waives `replay` "as a serving engine does", a relu hard-coded for one size
// declares that size as its whole domain, and both would be judged, and ranked, beside honest
// kernels. So `rkt eval` refuses them by default (`rkt run --refuse-declarations` in its child
// judges) and judges them only under `--allow-declarations`. `requires_alignment` stays allowed:
// it only sets how far the misaligned case shifts the buffers, never what is judged.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// The environment variable naming the folder a kernel's relative source path (KernelSpec::file,
/// its __FILE__) is read from to find a declaration's line: rkt eval compiles each file in its
/// own folder, so its child judges are given that folder here. Unset: the judge's own folder.
inline constexpr const char* kKernelSourceFolderVariable = "RKT_KERNEL_SOURCE_FOLDER";

/// Whether `restriction` excludes a size of `task`'s domain for its dim (a dim without a domain:
/// its test sizes). "N >= 1" or "N <= 16384" on a domain [1, 16384] narrows nothing.
bool narrows_domain(const DimRestriction& restriction, const TaskSpec& task);

/// The declarations of `kernel` that an untrusted file may not make by default, one sentence
/// each naming the kernel, where it is declared ("file:line" of the declaration when the source
/// is readable, else of the registration) and the declaration: every waived gate, every allowed
/// operator, every supports* restriction that narrows `task`'s domain. Empty: nothing to refuse.
std::vector<std::string> refused_declarations(const KernelSpec& kernel, const TaskSpec& task);

/// Every declaration in force for `kernel`, as (name, value) pairs for reports and JUnit
/// <properties>: precision, accumulates_in, waive_gate (one per gate: "gate: reason"),
/// allow_operators, supports (one per restriction), requires_alignment (bytes). Precision and
/// accumulation always appear; the others only when declared.
std::vector<std::pair<std::string, std::string>> declarations_in_force(const KernelSpec& kernel);

}  // namespace rkt
