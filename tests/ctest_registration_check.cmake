# Guard: every Catch2 test case is its own ctest test. catch_discover_tests turns names into filters; names
# with an unbalanced '[' once folded fourteen test cases into two filters that matched nothing and passed,
# and a ';' split sixteen more into halves that ran nothing.
# Run as: cmake -DEXES=a;b -DBUILD_DIR=dir -DCTEST=ctest -P ctest_registration_check.cmake
set(cases 0)
foreach(exe IN LISTS EXES)
  execute_process(COMMAND ${exe} --list-test-names-only OUTPUT_VARIABLE names RESULT_VARIABLE rc)
  # Catch2 v2 exits with the number of test cases listed, so rc is not an error status here.
  # Count line ends, not list items: CMake lists themselves mis-split on an unbalanced '['.
  string(REGEX REPLACE "[^\n]" "" ends "${names}")
  string(LENGTH "${ends}" n)
  math(EXPR cases "${cases} + ${n}")
endforeach()
# The guards (label `guard`, tests/CMakeLists.txt) are registered tests that are not test cases.
execute_process(COMMAND ${CTEST} -N -LE "^guard$" --test-dir ${BUILD_DIR} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
string(REGEX REPLACE "\n *Test +#[0-9]+:" "@" marked "${listing}")
string(REGEX REPLACE "[^@]" "" marks "${marked}")
string(LENGTH "${marks}" tests)
# The Python package's pytest files (python/CMakeLists.txt, tests named "python test_...") are not Catch2
# cases either.
string(REGEX REPLACE "\n *Test +#[0-9]+: python test_" "@" py_marked "${listing}")
string(REGEX REPLACE "[^@]" "" py_marks "${py_marked}")
string(LENGTH "${py_marks}" python_tests)
math(EXPR tests "${tests} - ${python_tests}")
if(NOT tests EQUAL cases)
  message(FATAL_ERROR "ctest registers ${tests} tests for ${cases} Catch2 test cases: a test name with an "
                      "unbalanced '[' or a ';' is split or folded into filters that run nothing; rename it")
endif()
message(STATUS "${cases} test cases, each registered once")
