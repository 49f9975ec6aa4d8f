# rkt_find_torch([MESSAGE_VAR <var>])
# Finds LibTorch (find_package(Torch)) and, when it is not found, stops with a message that says
# where LibTorch's CMake files come from, instead of CMake's generic "could not find TorchConfig".
# Used by this project's configure and by RobustKernelTestConfig.cmake (find_package in a user's
# project), so both say the same thing. With MESSAGE_VAR <var>, the message goes into <var> and
# nothing stops (a package config reports it through <Package>_NOT_FOUND_MESSAGE).
# A macro, not a function: TorchConfig's variables (TORCH_LIBRARIES, TORCH_INSTALL_PREFIX, ...)
# must reach the caller's scope.
#
# LibTorch's configure is loud, and none of it is the user's to act on: some twenty status lines
# (CUDA detection, cuDNN off, the architectures it guessed) and two warnings on every configure of
# a torch wheel, "pytorch is not compatible with `CMAKE_CUDA_ARCHITECTURES`" (printed whenever
# that variable is defined, which enable_language(CUDA) always does; LibTorch reads
# TORCH_CUDA_ARCH_LIST, which rkt_set_torch_cuda_arch_list sets) and "library kineto not found"
# (the wheel links kineto into libtorch_cpu and ships no libkineto). So find_package(Torch) runs at
# message log level ERROR: its errors still show, nothing else does, and one status line says
# what was found. -DRKT_TORCH_MESSAGES=ON, or a log level of your own (--log-level=...,
# CMAKE_MESSAGE_LOG_LEVEL), shows LibTorch's messages again.
macro(rkt_find_torch)
  cmake_parse_arguments(_rkt_find_torch "" "MESSAGE_VAR" "" ${ARGN})
  if(NOT TARGET torch)
    if(RKT_TORCH_MESSAGES OR DEFINED CMAKE_MESSAGE_LOG_LEVEL)
      find_package(Torch QUIET)
    else()
      set(CMAKE_MESSAGE_LOG_LEVEL ERROR)
      find_package(Torch QUIET)
      unset(CMAKE_MESSAGE_LOG_LEVEL)
      if(TARGET torch)
        message(STATUS "Found LibTorch ${Torch_VERSION}: ${TORCH_INSTALL_PREFIX} (its configure "
                       "messages hidden; -DRKT_TORCH_MESSAGES=ON shows them)")
      endif()
    endif()
  endif()
  if(NOT TARGET torch)
    string(CONCAT _rkt_find_torch_message
      "RobustKernelTest needs LibTorch, and find_package(Torch) found no TorchConfig.cmake "
      "(Torch_DIR is '${Torch_DIR}'). Point CMake at the CMake files of a torch wheel: "
      "-DCMAKE_PREFIX_PATH=\"$(python3 -W ignore -c 'import torch; print(torch.utils.cmake_prefix_path)')\" "
      "(or -DTorch_DIR=<that path>/Torch), or at an unpacked LibTorch archive: "
      "-DCMAKE_PREFIX_PATH=/path/to/libtorch. tools/bootstrap.sh installs the wheel it uses into "
      "~/.cache/rkt/venv-torch-<version>.")
    if(_rkt_find_torch_MESSAGE_VAR)
      set(${_rkt_find_torch_MESSAGE_VAR} "${_rkt_find_torch_message}")
    else()
      message(FATAL_ERROR "${_rkt_find_torch_message}")
    endif()
  endif()
endmacro()
