// Checks the registries once they are complete (at program start).
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// Every problem with the registered tasks and kernels, one sentence each: unknown task ids,
/// duplicate ids, malformed tasks. Empty when all is well.
std::vector<std::string> registry_errors();

/// Every problem with the ROBUST_PROPERTY declarations: unknown tasks or kernels, duplicate or
/// malformed names, properties that add nothing (framework/registry/user_properties.cpp).
std::vector<std::string> user_property_errors();

class UserProperty;
/// The problems of one property against the registries (user_property_errors without duplicates).
std::vector<std::string> user_property_problems(const UserProperty& property);

/// The registered task id nearest to `unknown_id`, or "" when none is close.
std::string closest_task_id(const std::string& unknown_id);

/// Up to `count` registered kernel ids ("task/kernel") nearest to `fragment` (by edit distance to
/// the whole id, its task or its kernel part), nearest first; none that are far from it.
std::vector<std::string> closest_kernel_ids(const std::string& fragment, std::size_t count);

}  // namespace rkt
