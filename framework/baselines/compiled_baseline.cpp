#include "framework/baselines/compiled_baseline.h"

#include <ATen/ATen.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "framework/base/gpu_architecture.h"
#include "framework/dims/dim_resolution.h"
#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/runtime/torch_bridge.h"

namespace rkt {
namespace {

bool file_exists(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string result = text.str();
  while (!result.empty() && (result.back() == '\n' || result.back() == ' ')) result.pop_back();
  return result;
}

// "B=37 N=300" -> "B37_N300": a file-name-safe form of the dims.
std::string dims_key(const Dims& dims) {
  std::string key;
  for (const auto& [name, size] : dims) {
    key += (key.empty() ? "" : "_") + name + std::to_string(size);
  }
  return key;
}

class PackagedReference : public CompiledReference {
 public:
  explicit PackagedReference(const std::string& path) : loader_(path) {}
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) override {
    return loader_.run(inputs);  // No stream given: the package runs on the current stream.
  }

 private:
  torch::inductor::AOTIModelPackageLoader loader_;
};

// Asked once per process: nvidia-smi takes a while, and the visible GPU does not change.
const std::string& process_gpu_architecture() {
  static const std::string architecture = visible_gpu_architecture();
  return architecture;
}

}  // namespace

std::string compiled_cache_directory() {
  const char* configured = std::getenv("RKT_AOTI_CACHE");
  const char* home = std::getenv("HOME");
  const std::string root = configured && *configured ? configured
                                                      : std::string(home ? home : "/tmp") +
                                                            "/.cache/rkt/aoti";
  return root + "/torch-" + TORCH_VERSION;
}

std::string compiled_device_key(Device device, const std::string& gpu_architecture) {
  if (device != Device::cuda) return to_string(device);
  return "cuda-sm" + (gpu_architecture.empty() ? std::string("-none") : gpu_architecture);
}

std::string compiled_package_path(const TaskSpec& task, Device device) {
  const TaskSpec& primary = task.configured(0);
  return compiled_cache_directory() + "/" + task.id() + "." +
         compiled_device_key(device, device == Device::cuda ? process_gpu_architecture() : "") +
         "." + dims_key(primary.test_dims(device)) + ".pt2";
}

std::unique_ptr<CompiledReference> load_compiled_reference(const TaskSpec& task, Device device,
                                                           std::string& absent_reason) {
  const std::string path = compiled_package_path(task, device);
  if (file_exists(path + ".absent")) {
    absent_reason = read_text(path + ".absent");
    return nullptr;
  }
  if (!file_exists(path)) {
    absent_reason = "no AOTInductor package at " + path +
                    " (tools/aoti/build_packages.py builds the packages `rkt aoti-spec` lists)";
    return nullptr;
  }
  try {
    return std::make_unique<PackagedReference>(path);
  } catch (const std::exception& error) {
    absent_reason = "the AOTInductor package " + path + " failed to load: " +
                    describe_exception(error);
    return nullptr;
  }
}

void print_compiled_spec(std::ostream& out, Device device) {
  using Json = nlohmann::ordered_json;
  Json spec = Json::object();
  spec["torch"] = TORCH_VERSION;
  spec["device"] = to_string(device);
  // The builder checks that it builds for the GPU the packages are keyed by.
  if (device == Device::cuda) spec["gpu_architecture"] = process_gpu_architecture();
  Json& tasks = spec["tasks"] = Json::array();
  for (const TaskSpec* declared : registered_tasks()) {
    const TaskSpec& task = declared->configured(0);
    const std::vector<std::vector<std::int64_t>> shapes = input_shapes(task, task.test_dims(device));
    Json entry = Json::object();
    entry["task"] = declared->id();
    entry["config"] = task.config_name();
    entry["dims"] = format_dims(task.test_dims(device));
    entry["package"] = compiled_package_path(*declared, device);
    if (!task.forward_task_id().empty()) {  // Built from the forward task's twin (its vjp).
      entry["forward_task"] = task.forward_task_id();
      entry["forward_inputs"] = task.num_forward_inputs();
    }
    Json& inputs = entry["inputs"] = Json::array();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      Json input = Json::object();
      input["name"] = task.inputs()[i].name;
      input["dtype"] = to_string(task.inputs()[i].dtype);
      input["shape"] = shapes[i];
      inputs.push_back(std::move(input));
    }
    tasks.push_back(std::move(entry));
  }
  // One line. Bytes that are not UTF-8 are written as U+FFFD instead of refused.
  out << spec.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace rkt
