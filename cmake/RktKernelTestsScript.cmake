# Script mode, run by rkt_add_kernel_tests (RktSuite.cmake) whenever a suite's judge, kernel
# library or worker changed, at build time and again at ctest time if the list is older:
#   cmake [-DJUDGE=<suite executable>] -DLISTING=<file> -DSCRIPT=<file> [-DSTAMP=<file>]
#         [-DTEST_PREFIX=<p>] [-DLABELS=<a,b>] [-DGPU_RESOURCE_GROUPS=<spec>] [-DJUNIT_DIR=<dir>]
#         -P RktKernelTestsScript.cmake
# With JUDGE, runs `<JUDGE> list --ctest <LISTING>` first. Reads the ctest script that
# `<suite> list --ctest` wrote (one add_test and one
# set_tests_properties line per kernel and label group) and writes it again with the test prefix,
# the extra labels, the GPU requirement (RESOURCE_GROUPS) of every test labelled cuda, and each
# test's JUnit report (`--junit <dir>/<file>.xml`) moved into JUNIT_DIR, its file name prefixed
# as the test is (the prefix's characters other than letters, digits, '_', '-' and '.' turned
# into '.', as junit_file_name in framework/cli/listing.h does). Writes only when the text
# changed, so that ctest's view of the tests is stable between identical builds, and touches
# STAMP every time: the time the list was last made from the binaries.
foreach(required LISTING SCRIPT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "RktKernelTestsScript.cmake: -D${required}=... is required")
  endif()
endforeach()
if(JUDGE)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env CUDA_MODULE_LOADING=LAZY "${JUDGE}"
                          list --ctest "${LISTING}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`${JUDGE} list --ctest` failed (${status}); ctest cannot list its "
                        "kernels' tests:\n${output}")
  endif()
endif()
file(READ "${LISTING}" text)
# Before the prefix is added to the names: the file name follows the --junit option's last '/'.
if(JUNIT_DIR OR TEST_PREFIX)
  string(REGEX REPLACE "[^A-Za-z0-9_.-]" "." file_prefix "${TEST_PREFIX}")
  set(directory_part "\\1")
  if(JUNIT_DIR)
    set(directory_part "${JUNIT_DIR}/")
  endif()
  string(REGEX REPLACE "--junit \"([^\"]*/)([^\"/]*)\"" "--junit \"${directory_part}${file_prefix}\\2\""
         text "${text}")
endif()
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
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
