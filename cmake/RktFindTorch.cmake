# rkt_find_torch([MESSAGE_VAR <var>])
# Finds LibTorch (find_package(Torch)) and, when it is not found, stops with a message that says
# where LibTorch's CMake files come from, instead of CMake's generic "could not find TorchConfig".
# Used by this project's configure and by RobustKernelTestConfig.cmake (find_package in a user's
# project), so both say the same thing. With MESSAGE_VAR <var>, the message goes into <var> and
# nothing stops (a package config reports it through <Package>_NOT_FOUND_MESSAGE).
# A macro, not a function: TorchConfig's variables (TORCH_LIBRARIES, TORCH_INSTALL_PREFIX, ...)
# must reach the caller's scope.
macro(rkt_find_torch)
  cmake_parse_arguments(_rkt_find_torch "" "MESSAGE_VAR" "" ${ARGN})
  if(NOT TARGET torch)
    find_package(Torch QUIET)
  endif()
  if(NOT TARGET torch)
    string(CONCAT _rkt_find_torch_message
      "RobustKernelTest needs LibTorch, and find_package(Torch) found no TorchConfig.cmake "
      "(Torch_DIR is '${Torch_DIR}'). Point CMake at the CMake files of a torch wheel: "
      "-DCMAKE_PREFIX_PATH=\"$(python -c 'import torch; print(torch.utils.cmake_prefix_path)')\" "
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
