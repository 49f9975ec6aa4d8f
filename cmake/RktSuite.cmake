# rkt_add_suite(<name> KERNELS <files...> [TASKS <files...>] [NO_CTEST])
#
# Builds a suite over the given kernel files (.cpp, and .cu when CUDA is enabled):
#   <name>_kernels  a shared library of the kernels (the kernel library). Only rkt-worker processes
#                   load it; the judge never does, except in the in-process debugging mode.
#   <name>          the `rkt` tool (the judge: framework, every shipped task and the TASKS files,
#                   your own RKT_TASK definitions; no kernel code), pointed at <name>_kernels and
#                   rkt-worker.
# and registers the suite's cases with ctest (rkt_add_kernel_tests(<name>)) unless NO_CTEST is
# given; call rkt_add_kernel_tests yourself after NO_CTEST to pass it options.
#
# The same calls work in this tree, in a project that adds this tree with add_subdirectory or
# FetchContent, and after find_package(RobustKernelTest): targets are named by their
# RobustKernelTest:: aliases, and the two sources compiled into every suite come from
# RKT_JUDGE_MAIN_SOURCE and RKT_KERNEL_ENTRY_SOURCE (framework/CMakeLists.txt or the package).
#
# rkt_add_kernel_tests(<suite> [TEST_PREFIX <prefix>] [LABELS <label>...]
#                      [GPU_RESOURCE_GROUPS <spec>])
#
# Registers the suite's cases with ctest, in the spirit of gtest_discover_tests: after each build
# of <suite>, `<suite> list --ctest` writes one test per kernel and label group (correctness,
# property, integrity; each run in its own supervised process, exit code 77 = skipped), labelled
# with that group and the kernel's device (cpu or cuda). RktKernelTestsScript.cmake then adds
# TEST_PREFIX to every name, the extra LABELS to every test, and RESOURCE_GROUPS
# <spec> (default "gpus:1") to every CUDA test, so that `ctest --resource-spec-file` runs at most
# one CUDA test per GPU at a time. Call it in the directory that created <suite>.
set(RKT_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "RobustKernelTest's CMake modules")

function(rkt_add_suite name)
  cmake_parse_arguments(ARG "NO_CTEST" "" "KERNELS;TASKS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rkt_add_suite(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(kernel_sources "${RKT_KERNEL_ENTRY_SOURCE}")
  foreach(file IN LISTS ARG_KERNELS)
    if(file MATCHES "\\.cu$" AND NOT RKT_WITH_CUDA)
      continue()
    endif()
    list(APPEND kernel_sources "${file}")
  endforeach()
  add_library(${name}_kernels MODULE ${kernel_sources})
  # Kernel files may use LibTorch (tensor-form kernels); the library binds its own symbols first.
  target_link_libraries(${name}_kernels PRIVATE RobustKernelTest::rkt_kernel_api
                                                ${RKT_TORCH_TARGET})
  if(RKT_SOURCE_DIR)  # In this tree, shipped kernels share helpers under kernels/.
    target_include_directories(${name}_kernels PRIVATE "${RKT_SOURCE_DIR}")
  endif()
  target_link_options(${name}_kernels PRIVATE "LINKER:-Bsymbolic")
  if(RKT_WITH_CUDA)
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
  add_executable(${name} "${RKT_JUDGE_MAIN_SOURCE}" ${ARG_TASKS})
  target_link_libraries(${name} PRIVATE RobustKernelTest::rkt_framework RobustKernelTest::rkt_tasks)
  target_compile_definitions(${name} PRIVATE
    RKT_KERNEL_LIBRARY_PATH="$<TARGET_FILE:${name}_kernels>"
    RKT_WORKER_PATH="$<TARGET_FILE:RobustKernelTest::rkt-worker>"
    RKT_INSTALLED_KERNEL_LIBRARY="${lib_from_bin}/$<TARGET_FILE_NAME:${name}_kernels>"
    RKT_INSTALLED_WORKER="$<TARGET_FILE_NAME:RobustKernelTest::rkt-worker>")
  add_dependencies(${name} ${name}_kernels RobustKernelTest::rkt-worker)
  rkt_set_warnings(${name})
  if(NOT ARG_NO_CTEST)
    rkt_add_kernel_tests(${name})
  endif()
endfunction()

function(rkt_add_kernel_tests suite)
  cmake_parse_arguments(ARG "" "TEST_PREFIX;GPU_RESOURCE_GROUPS" "LABELS" ${ARGN})
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
  # Labels travel to the script joined by commas: a ;-list would split the command's argument.
  string(REPLACE ";" "," labels "${ARG_LABELS}")
  set(listing "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_listing.cmake")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_cases.cmake")
  set(loader "${CMAKE_CURRENT_BINARY_DIR}/${suite}_ctest_loader.cmake")
  add_custom_command(TARGET ${suite} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E env CUDA_MODULE_LOADING=LAZY $<TARGET_FILE:${suite}>
            list --ctest "${listing}"
    COMMAND ${CMAKE_COMMAND} "-DLISTING=${listing}" "-DSCRIPT=${script}"
            "-DTEST_PREFIX=${ARG_TEST_PREFIX}" "-DLABELS=${labels}"
            "-DGPU_RESOURCE_GROUPS=${ARG_GPU_RESOURCE_GROUPS}"
            -P "${RKT_CMAKE_DIR}/RktKernelTestsScript.cmake"
    COMMENT "Listing the test cases of ${suite} for ctest"
    VERBATIM)
  file(WRITE "${loader}"
    "if(EXISTS \"${script}\")\n  include(\"${script}\")\nelse()\n"
    "  add_test(${ARG_TEST_PREFIX}${suite}_NOT_BUILT ${suite}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${loader}")
endfunction()

# Warnings on for our own code; errors in CI (RKT_WARNINGS_AS_ERRORS).
function(rkt_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${RKT_WARNINGS_AS_ERRORS}>>:-Werror>)
endfunction()
