# rkt_add_suite(NAME KERNELS <files...> [NO_CTEST])
#
# Builds a suite over the given kernel files (.cpp, and .cu when CUDA is enabled):
#   NAME_kernels  a shared library of the kernels (the kernel library). Only rkt-worker processes
#                 load it; the judge never does, except in the in-process debugging mode.
#   NAME          the `rkt` tool (the judge: framework and tasks, no kernel code), pointed at
#                 NAME_kernels and rkt-worker.
# and registers the suite's cases with ctest: after each build the tool writes one ctest test per
# kernel and label group (see `rkt list --ctest`), each run in its own supervised process.
function(rkt_add_suite name)
  cmake_parse_arguments(ARG "NO_CTEST" "" "KERNELS" ${ARGN})
  set(kernel_sources "${RKT_SOURCE_DIR}/framework/worker/kernel_library_entry.cpp")
  foreach(file IN LISTS ARG_KERNELS)
    if(file MATCHES "\\.cu$" AND NOT RKT_WITH_CUDA)
      continue()
    endif()
    list(APPEND kernel_sources "${file}")
  endforeach()
  add_library(${name}_kernels MODULE ${kernel_sources})
  # Kernel files may use LibTorch (tensor-form kernels); the library binds its own symbols first.
  target_link_libraries(${name}_kernels PRIVATE rkt_kernel_api ${TORCH_LIBRARIES})
  target_include_directories(${name}_kernels PRIVATE "${RKT_SOURCE_DIR}")
  target_link_options(${name}_kernels PRIVATE "LINKER:-Bsymbolic")
  if(RKT_WITH_CUDA)
    target_link_libraries(${name}_kernels PRIVATE CUDA::cudart)
  endif()
  rkt_set_warnings(${name}_kernels)

  add_executable(${name} "${RKT_SOURCE_DIR}/framework/rkt_main.cpp")
  target_link_libraries(${name} PRIVATE rkt_framework rkt_tasks)
  target_compile_definitions(${name} PRIVATE
    RKT_KERNEL_LIBRARY_PATH="$<TARGET_FILE:${name}_kernels>"
    RKT_WORKER_PATH="$<TARGET_FILE:rkt-worker>")
  add_dependencies(${name} ${name}_kernels rkt-worker)
  rkt_set_warnings(${name})
  if(NOT ARG_NO_CTEST)
    set(script "${CMAKE_CURRENT_BINARY_DIR}/${name}_ctest_cases.cmake")
    set(loader "${CMAKE_CURRENT_BINARY_DIR}/${name}_ctest_loader.cmake")
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E env CUDA_MODULE_LOADING=LAZY $<TARGET_FILE:${name}> list --ctest "${script}"
      COMMENT "Listing the test cases of ${name} for ctest"
      VERBATIM)
    file(WRITE "${loader}"
      "if(EXISTS \"${script}\")\n  include(\"${script}\")\nelse()\n"
      "  add_test(${name}_NOT_BUILT ${name}_NOT_BUILT)\nendif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${loader}")
  endif()
endfunction()

# Warnings on for our own code; errors in CI (RKT_WARNINGS_AS_ERRORS).
function(rkt_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${RKT_WARNINGS_AS_ERRORS}>>:-Werror>)
endfunction()
