# Script mode, run after each build of a suite by rkt_add_kernel_tests (RktSuite.cmake):
#   cmake -DLISTING=<file> -DSCRIPT=<file> [-DTEST_PREFIX=<p>] [-DLABELS=<a,b>]
#         [-DGPU_RESOURCE_GROUPS=<spec>] -P RktKernelTestsScript.cmake
# Reads the ctest script that `<suite> list --ctest` wrote (one add_test and one
# set_tests_properties line per kernel and label group) and writes it again with the test prefix,
# the extra labels, and the GPU requirement (RESOURCE_GROUPS) of every test labelled cuda. Writes only when the text
# changed, so that ctest's view of the tests is stable between identical builds.
foreach(required LISTING SCRIPT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "RktKernelTestsScript.cmake: -D${required}=... is required")
  endif()
endforeach()
file(READ "${LISTING}" text)
if(TEST_PREFIX)
  string(REPLACE "add_test(\"" "add_test(\"${TEST_PREFIX}" text "${text}")
  string(REPLACE "set_tests_properties(\"" "set_tests_properties(\"${TEST_PREFIX}" text "${text}")
endif()
if(LABELS)
  string(REPLACE "," ";" labels "${LABELS}")
  string(REPLACE "LABELS \"" "LABELS \"${labels};" text "${text}")
endif()
if(GPU_RESOURCE_GROUPS)
  # `rkt list --ctest` already asks gpus:1 for CUDA tests; the requirement given here replaces it.
  string(REGEX REPLACE " RESOURCE_GROUPS (\"[^\"]*\"|[^ )]+)" "" text "${text}")
  string(REGEX REPLACE "(LABELS \"[^\"]*;cuda(;[^\"]*)?\")"
         "\\1 RESOURCE_GROUPS \"${GPU_RESOURCE_GROUPS}\"" text "${text}")
endif()
set(previous "")
if(EXISTS "${SCRIPT}")
  file(READ "${SCRIPT}" previous)
endif()
if(NOT previous STREQUAL text)
  file(WRITE "${SCRIPT}" "${text}")
endif()
