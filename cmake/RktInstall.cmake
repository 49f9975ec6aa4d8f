# `cmake --install` rules and the package that find_package(RobustKernelTest) reads:
#   bin/                       rkt (the shipped kernels' judge, when RKT_BUILD_KERNELS), rkt-worker
#                              and beside it its LibTorch plugin, librkt_worker_torch.so
#   lib/                       rkt_kernel_api, rkt_wire, rkt_device_runtime, rkt_kernel_runtime,
#                              rkt_framework (static),
#                              librkt_kernels.so (the shipped kernels); lib/rkt_objects/: the
#                              objects of rkt_tasks, rkt_judge_main (main) and rkt_kernel_entry
#   include/rkt/               the public API
#   include/rkt_internal/      the framework's own headers (the judge's entry point includes them)
#   lib/cmake/RobustKernelTest/  RobustKernelTestConfig.cmake, its version file, the exported
#                              targets and the modules users call (RktSuite, RktFindTorch, ...)
#
# The tasks are an OBJECT library (rkt_tasks): installed as object files and exported, so a user's
# judge links every task's object, static registrars included, as this tree's `rkt` does. The
# judge's main and the kernel library's entry symbol are object libraries for the same reason.
include(CMakePackageConfigHelpers)

set(rkt_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/RobustKernelTest")

install(TARGETS rkt_kernel_api rkt_wire rkt_device_runtime rkt_kernel_runtime rkt_framework rkt_tasks
                rkt_judge_main rkt_kernel_entry rkt-worker
  EXPORT RobustKernelTestTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  OBJECTS DESTINATION "${CMAKE_INSTALL_LIBDIR}/rkt_objects")
# rkt-worker loads it from its own folder (framework/worker/kernel_calls.h).
install(TARGETS rkt_worker_torch LIBRARY DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(TARGET rkt)
  install(TARGETS rkt rkt_kernels
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
install(EXPORT RobustKernelTestTargets
  NAMESPACE RobustKernelTest::
  DESTINATION "${rkt_package_dir}")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/rkt" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/framework" "${PROJECT_SOURCE_DIR}/tasks"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/rkt_internal"
  FILES_MATCHING PATTERN "*.h")

# What the package's config needs to know about this build.
set(RKT_PACKAGE_WITH_CUDA "${RKT_WITH_CUDA}")
set(RKT_PACKAGE_TORCH_VERSION "${Torch_VERSION}")
set(RKT_PACKAGE_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/RobustKernelTestConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/RobustKernelTestConfig.cmake"
  INSTALL_DESTINATION "${rkt_package_dir}")
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/RobustKernelTestConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/package/RobustKernelTestConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/RobustKernelTestConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktSuite.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktKernelTestsScript.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktFindTorch.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktTorchArchList.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktCheckTorchCuda.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/RktCudaVersionMatch.cmake"
  DESTINATION "${rkt_package_dir}")
