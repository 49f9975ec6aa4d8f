// The dims a kernel declares it supports (KernelSpec::supports, data from the kernel library)
// against a task: whether dims lie inside them, the property ranges narrowed to them, and the
// registration errors when the task's own test or benchmark dims lie outside.
//
// Why a kernel may narrow its domain at all: real kernels are written for shapes (float4 loads
// need N % 4 == 0, a shared-memory tile caps N). Undeclared, such a restriction is a bug the
// shape property must find; declared, it is a documented limit that every report shows, and the
// kernel is tested everywhere inside it.
#pragma once

#include <string>
#include <vector>

#include "framework/dims/edge_dims.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// The first restriction in `restrictions` that `dims` violates, or nullptr (dims the
/// restrictions do not name are free; a restriction on a dim `dims` lacks is not violated).
const DimRestriction* violated_restriction(const std::vector<DimRestriction>& restrictions,
                                           const Dims& dims);

/// "N % 4 == 0, N <= 8192", or "" when there are none.
std::string describe_restrictions(const std::vector<DimRestriction>& restrictions);

/// `range` of dim `dim` narrowed to `restrictions`: min and max clamped by >= and <=, and, for
/// "% k == 0", a step of k (the least common multiple when there are several) with min rounded
/// up and max down to it.
DimRange restrict_range(DimRange range, const std::string& dim,
                        const std::vector<DimRestriction>& restrictions);

/// `dims` with every dim that `restrictions` reject moved to the nearest size they admit inside
/// `task`'s domain for it (dims without a domain: from 1 up). Among the nearest sizes (up to two
/// steps either side) one that is not a power of two is preferred, so a ragged size stays ragged
/// where the domain allows it (N = 300 under "N % 64 == 0": 320; under "N <= 256": 255). Dims the
/// restrictions admit are kept as they are. Value-family, relation and sanitizer cases run there.
/// Throws std::invalid_argument naming the dim when the restrictions leave it no size (which
/// supported_dims_errors reports at registration first).
Dims dims_inside_domain(const Dims& dims, const TaskSpec& task,
                        const std::vector<DimRestriction>& restrictions);

/// What is wrong with `kernel`'s declared dims on `task`, one sentence each naming the kernel and
/// the restriction: a dim the task does not have, a step below 1, a domain left empty, and every
/// config whose test dims on the kernel's device (the dims its correctness cases, integrity
/// gates and benchmark run at) lie outside.
std::vector<std::string> supported_dims_errors(const KernelSpec& kernel, const TaskSpec& task);

}  // namespace rkt
