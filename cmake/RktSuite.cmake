# rkt_add_suite(<name> KERNELS <files...> [TASKS <files...>] [NO_CTEST] [LIBTORCH])
#
# Builds a suite over the given kernel files (.cpp, and .cu when CUDA is enabled):
#   <name>_kernels  a shared library of the kernels (the kernel library). Only rkt-worker processes
#                   load it; the judge never does, except in the in-process debugging mode. It
#                   links LibTorch only when a kernel file includes LibTorch's headers (torch/,
#                   ATen/, c10/ or rkt/torch_kernel.h) or LIBTORCH is given: a library of
#                   view-form kernels runs in workers that never load LibTorch (starting in
#                   milliseconds; framework/worker/kernel_calls.h). A header of your own that
#                   includes LibTorch's needs LIBTORCH.
#   <name>          the `rkt` tool (the judge: framework, every shipped task and the TASKS files,
#                   your own RKT_TASK definitions; no kernel code), pointed at <name>_kernels and
#                   rkt-worker.
# and registers the suite's cases with ctest (rkt_add_kernel_tests(<name>)) unless NO_CTEST is
# given; call rkt_add_kernel_tests yourself after NO_CTEST to pass it options.
#
# The same calls work in this tree, in a project that adds this tree with add_subdirectory or
# FetchContent, and after find_package(RobustKernelTest): targets are named by their
# RobustKernelTest:: aliases (the judge's entry point and the kernel library's entry symbol are
# the object libraries rkt_judge_main and rkt_kernel_entry).
#
# rkt_add_kernel_tests(<suite> [TEST_PREFIX <prefix>] [LABELS <label>...]
#                      [GPU_RESOURCE_GROUPS <spec>] [JUNIT_DIR <dir>])
#
# Registers the suite's cases with ctest, in the spirit of gtest_discover_tests: whenever <suite>,
# its kernel library or rkt-worker changed (at build time, target <suite>_ctest_cases, and again
# at ctest time when the list is older than any of them), `<suite> list --ctest` writes one
# test per kernel and label group (correctness, property, integrity; each run in its own supervised process, exit code 77 = skipped), labelled
# with that group and the kernel's device (cpu or cuda). RktKernelTestsScript.cmake then adds
# TEST_PREFIX to every name, the extra LABELS to every test, and RESOURCE_GROUPS
# <spec> (default "gpus:1") to every CUDA test, so that `ctest --resource-spec-file` runs at most
# one CUDA test per GPU at a time. Each test writes its cases' JUnit XML (one testcase per case,
# crashed and hung ones included) to <dir>/<test name>.xml, the name's '/' and ':' turned into
# '.' (default <dir>: ${CMAKE_BINARY_DIR}/junit), for CI to collect (docs/ci.md). Call it in the
# directory that created <suite>.
set(RKT_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "RobustKernelTest's CMake modules")

function(rkt_add_suite name)
  cmake_parse_arguments(ARG "NO_CTEST;LIBTORCH" "" "KERNELS;TASKS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rkt_add_suite(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(kernel_sources "")
  foreach(file IN LISTS ARG_KERNELS)
    if(file MATCHES "\\.cu$" AND NOT RKT_WITH_CUDA)
      continue()
    endif()
    list(APPEND kernel_sources "${file}")
  endforeach()
  add_library(${name}_kernels MODULE ${kernel_sources})
  # rkt_kernel_entry: the symbol through which rkt-worker finds the library's kernels.
  target_link_libraries(${name}_kernels PRIVATE RobustKernelTest::rkt_kernel_entry
                        RobustKernelTest::rkt_kernel_api)
  # Kernel files may use LibTorch (tensor-form kernels): then the library links it.
  set(uses_libtorch ${ARG_LIBTORCH})
  foreach(file IN LISTS kernel_sources)
    file(STRINGS "${file}" torch_includes
         REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](torch/|ATen/|c10/|rkt/torch_kernel\\.h)")
    if(torch_includes)
      set(uses_libtorch ON)
    endif()
  endforeach()
  if(uses_libtorch)
    target_link_libraries(${name}_kernels PRIVATE ${RKT_TORCH_TARGET})
  endif()
  if(RKT_SOURCE_DIR)  # In this tree, shipped kernels share helpers under kernels/.
    target_include_directories(${name}_kernels PRIVATE "${RKT_SOURCE_DIR}")
  endif()
  target_link_options(${name}_kernels PRIVATE "LINKER:-Bsymbolic")
  if(RKT_WITH_CUDA)
    # Imported targets are visible only in the directory that found them: a project that adds
    # this tree with add_subdirectory or FetchContent has not found CUDA itself.
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit REQUIRED)
    endif()
    target_link_libraries(${name}_kernels PRIVATE CUDA::cudart)
  endif()
  rkt_set_warnings(${name}_kernels)

  # Where `cmake --install` puts the kernel library, seen from the judge's directory: an installed
  # judge looks there first (rkt_main.cpp), a judge in a build tree finds nothing there.
  set(bin_dir bin)
  set(lib_dir lib)
  if(CMAKE_INSTALL_BINDIR)
    set(bin_dir "${CMAKE_INSTALL_BINDIR}")
    set(lib_dir "${CMAKE_INSTALL_LIBDIR}")
  endif()
  file(RELATIVE_PATH lib_from_bin "/${bin_dir}" "/${lib_dir}")
  # The judge: the compiled entry point (rkt_judge_main), every shipped task, the TASKS files,
  # and this generated file of paths (no includes: it compiles in milliseconds).
  set(paths_source "${CMAKE_CURRENT_BINARY_DIR}/${name}_suite_paths.cpp")
  file(GENERATE OUTPUT "${paths_source}" CONTENT
"// Generated by rkt_add_suite (cmake/RktSuite.cmake): where ${name} finds its kernel library and
// rkt-worker (framework/cli/rkt_main.cpp).
namespace rkt::suite_paths {
extern const char* const kKernelLibrary = \"$<TARGET_FILE:${name}_kernels>\";
extern const char* const kWorker = \"$<TARGET_FILE:RobustKernelTest::rkt-worker>\";
extern const char* const kInstalledKernelLibrary =
    \"${lib_from_bin}/$<TARGET_FILE_NAME:${name}_kernels>\";
extern const char* const kInstalledWorker = \"$<TARGET_FILE_NAME:RobustKernelTest::rkt-worker>\";
}  // namespace rkt::suite_paths
")
  add_executable(${name} "${paths_source}" ${ARG_TASKS})
  target_link_libraries(${name} PRIVATE RobustKernelTest::rkt_judge_main
                        RobustKernelTest::rkt_framework RobustKernelTest::rkt_tasks)
  add_dependencies(${name} ${name}_kernels RobustKernelTest::rkt-worker)
  rkt_set_warnings(${name})
  if(NOT ARG_NO_CTEST)
    rkt_add_kernel_tests(${name})
  endif()
endfunction()

function(rkt_add_kernel_tests suite)
  cmake_parse_arguments(ARG "" "TEST_PREFIX;GPU_RESOURCE_GROUPS;JUNIT_DIR" "LABELS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rkt_add_kernel_tests(${suite}): unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${suite}_kernels)
    message(FATAL_ERROR "rkt_add_kernel_tests(${suite}): ${suite} is not a suite made by "
                        "rkt_add_suite (no target ${suite}_kernels)")
  endif()
  if(NOT DEFINED ARG_GPU_RESOURCE_GROUPS)
    set(ARG_GPU_RESOURCE_GROUPS "gpus:1")
  endif()
  if(NOT ARG_JUNIT_DIR)
    set(ARG_JUNIT_DIR "${CMAKE_BINARY_DIR}/junit")
  endif()
  # Labels travel to the script joined by commas: a ;-list would split the command's argument.
  string(REPLACE ";" "," labels "${ARG_LABELS}")
  set(listing "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_listing.cmake")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_cases.cmake")
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_cases.stamp")
  set(loader "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_loader.cmake")
  # The list of tests depends on the judge (tasks, case catalog) and on the kernel library (its
  # ROBUST_KERNEL_TEST lines) and the worker that describes it: a new kernel file, a new or
  # removed ROBUST_KERNEL_TEST in an old one, or a task change each relinks one of them, and
  # any of them reruns the listing. (A POST_BUILD step on the judge alone missed kernel changes:
  # adding a kernel rebuilds only the library, so ctest kept the old list.)
  set(list_command "${CMAKE_COMMAND}" "-DJUDGE=$<TARGET_FILE:${suite}>" "-DLISTING=${listing}"
      "-DSCRIPT=${script}" "-DSTAMP=${stamp}" "-DTEST_PREFIX=${ARG_TEST_PREFIX}"
      "-DLABELS=${labels}" "-DGPU_RESOURCE_GROUPS=${ARG_GPU_RESOURCE_GROUPS}"
      "-DJUNIT_DIR=${ARG_JUNIT_DIR}" -P "${RKT_CMAKE_DIR}/RktKernelTestsScript.cmake")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND ${list_command}
    DEPENDS ${suite} ${suite}_kernels RobustKernelTest::rkt-worker
            "${RKT_CMAKE_DIR}/RktKernelTestsScript.cmake"
    COMMENT "Listing the test cases of ${suite} for ctest"
    VERBATIM)
  add_custom_target(${suite}_ctest_cases ALL DEPENDS "${stamp}")
  # At ctest time the loader checks the list again, as gtest_discover_tests' PRE_TEST mode does:
  # a list older than the judge, the kernel library or the worker (one target built alone,
  # `cmake --build --target <suite>_kernels`) is made anew before ctest reads it, and a listing
  # that fails becomes a failing test naming why, never a silently stale or empty list.
  set(quoted_command "")
  foreach(argument IN LISTS list_command)
    string(APPEND quoted_command " [==[${argument}]==]")
  endforeach()
  file(GENERATE OUTPUT "${loader}" CONTENT
"# Generated by rkt_add_kernel_tests (cmake/RktSuite.cmake): ctest reads ${suite}'s tests here.
set(rkt_judge [==[$<TARGET_FILE:${suite}>]==])
set(rkt_inputs \"\${rkt_judge}\" [==[$<TARGET_FILE:${suite}_kernels>]==]
    [==[$<TARGET_FILE:RobustKernelTest::rkt-worker>]==])
if(NOT EXISTS \"\${rkt_judge}\")
  add_test([==[${ARG_TEST_PREFIX}${suite}_NOT_BUILT]==] [==[${suite}_NOT_BUILT]==])
else()
  set(rkt_stale FALSE)
  foreach(rkt_input IN LISTS rkt_inputs)
    if(NOT EXISTS [==[${stamp}]==] OR \"\${rkt_input}\" IS_NEWER_THAN [==[${stamp}]==])
      set(rkt_stale TRUE)
    endif()
  endforeach()
  if(rkt_stale)
    execute_process(COMMAND${quoted_command}
      RESULT_VARIABLE rkt_status OUTPUT_VARIABLE rkt_output ERROR_VARIABLE rkt_output)
    if(NOT rkt_status EQUAL 0)
      file(REMOVE [==[${stamp}]==])
      string(REPLACE \";\" \",\" rkt_output \"\${rkt_output}\")
      add_test([==[${ARG_TEST_PREFIX}${suite}_TEST_LIST_FAILED]==] [==[${CMAKE_COMMAND}]==] -E echo
        \"${suite}'s test list is out of date and listing it again failed (\${rkt_status}): \${rkt_output}\")
      set_tests_properties([==[${ARG_TEST_PREFIX}${suite}_TEST_LIST_FAILED]==] PROPERTIES
        FAIL_REGULAR_EXPRESSION \".\")
    endif()
  endif()
  if(EXISTS [==[${script}]==] AND EXISTS [==[${stamp}]==])
    include([==[${script}]==])
  endif()
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${loader}")
endfunction()

# Warnings on for our own code; errors in CI (RKT_WARNINGS_AS_ERRORS).
function(rkt_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${RKT_WARNINGS_AS_ERRORS}>>:-Werror>)
endfunction()
