// The registry of ROBUST_PROPERTY declarations (include/rkt/user_property.h) and their
// validation at start. Running them is framework/cases/user_property_cases.cpp.
#include <cctype>
#include <deque>
#include <set>

#include "framework/registry/registry_validation.h"
#include "rkt/registration.h"
#include "rkt/user_property.h"

namespace rkt {
namespace {

// A function-local static: registrars in other translation units may run before this file's
// globals are constructed. A deque keeps references stable as entries are added.
std::deque<UserProperty>& property_storage() {
  static std::deque<UserProperty> storage;
  return storage;
}

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

UserProperty::UserProperty(std::string task_id, std::string name, std::string file, int line)
    : task_id_(std::move(task_id)), name_(std::move(name)), file_(std::move(file)), line_(line) {}

UserProperty& UserProperty::statement(std::string text) {
  statement_ = std::move(text);
  return *this;
}

UserProperty& UserProperty::kernels(std::vector<std::string> kernel_ids) {
  kernel_ids_.insert(kernel_ids_.end(), kernel_ids.begin(), kernel_ids.end());
  return *this;
}

UserProperty& UserProperty::dims(DimsGenerator generator) {
  dims_ = std::move(generator);
  return *this;
}

UserProperty& UserProperty::inputs(InputsGenerator generator) {
  inputs_ = std::move(generator);
  return *this;
}

UserProperty& UserProperty::check(PropertyCheck check) {
  check_ = std::move(check);
  return *this;
}

UserProperty& UserProperty::trials(int count) {
  trials_ = count;
  return *this;
}

bool UserProperty::applies_to(const std::string& kernel_id) const {
  if (kernel_ids_.empty()) return true;
  for (const std::string& id : kernel_ids_) {
    if (id == kernel_id) return true;
  }
  return false;
}

UserProperty& register_user_property(const std::string& task_id, const std::string& name,
                                     const char* file, int line) {
  return property_storage().emplace_back(task_id, name, file, line);
}

std::vector<const UserProperty*> user_properties_of(const std::string& task_id) {
  std::vector<const UserProperty*> found;
  for (const UserProperty& property : property_storage()) {
    if (property.task_id() == task_id) found.push_back(&property);
  }
  return found;
}

std::vector<const UserProperty*> registered_user_properties() {
  std::vector<const UserProperty*> all;
  for (const UserProperty& property : property_storage()) all.push_back(&property);
  return all;
}

std::vector<std::string> user_property_problems(const UserProperty& property) {
  std::vector<std::string> errors;
  const std::string who = "property '" + property.name() + "' (" + property.file() + ":" +
                          std::to_string(property.line()) + ")";
  if (!is_identifier(property.name())) {
    errors.push_back(who + ": a property name is letters, digits and '_' (it names a test case)");
  }
  if (find_task(property.task_id()) == nullptr) {
    const std::string hint = closest_task_id(property.task_id());
    errors.push_back(who + " is declared on unknown task '" + property.task_id() + "'" +
                     (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    return errors;
  }
  std::set<std::string> task_kernels;
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->task_id() == property.task_id()) task_kernels.insert(kernel->kernel_id());
  }
  for (const std::string& kernel_id : property.kernel_ids()) {
    if (task_kernels.count(kernel_id) == 0) {
      errors.push_back(who + " names kernel '" + kernel_id + "', which is not a kernel of task '" +
                       property.task_id() + "' in this suite");
    }
  }
  if (!property.dims_generator() && !property.inputs_generator() && !property.check_function()) {
    errors.push_back(who + " adds nothing to the correctness cases: give it dims(), inputs() or "
                           "check()");
  }
  if (property.trial_count() && *property.trial_count() < 1) {
    errors.push_back(who + ": trials(" + std::to_string(*property.trial_count()) +
                     ") must be at least 1");
  }
  return errors;
}

std::vector<std::string> user_property_errors() {
  std::vector<std::string> errors;
  std::set<std::string> seen;
  for (const UserProperty& property : property_storage()) {
    for (std::string& error : user_property_problems(property)) errors.push_back(std::move(error));
    if (!seen.insert(property.task_id() + "/" + property.name()).second) {
      errors.push_back("property '" + property.name() + "' (" + property.file() + ":" +
                       std::to_string(property.line()) + "): task '" + property.task_id() +
                       "' already has a property of that name");
    }
  }
  return errors;
}

}  // namespace rkt
