# Guard: the test cases CMakePresets.json's `asan` test preset leaves out by name still exist, one each. The
# preset names them in a regular expression (filter.exclude.name, "^(first|second|...)"); a renamed case
# would silently run again under the sanitizers (minutes of CI time), and a second case sharing a name's
# start would silently be left out.
# Run as: cmake -DPRESETS=CMakePresets.json -DBUILD_DIR=dir -DCTEST=ctest -P asan_preset_exclusions_check.cmake
file(READ "${PRESETS}" json)
string(JSON presets GET "${json}" testPresets)
string(JSON count LENGTH "${presets}")
set(regex "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${presets}" ${i} name)
  if(name STREQUAL "asan")
    string(JSON regex ERROR_VARIABLE missing GET "${presets}" ${i} filter exclude name)
  endif()
endforeach()
if(regex STREQUAL "" OR missing)
  message(FATAL_ERROR "${PRESETS}: no testPresets entry `asan` with filter.exclude.name")
endif()
if(NOT regex MATCHES "^\\^\\((.+)\\)$")
  message(FATAL_ERROR "${PRESETS}: asan filter.exclude.name is not of the form ^(name|name|...): ${regex}")
endif()
string(REPLACE "|" ";" names "${CMAKE_MATCH_1}")
set(checked 0)
foreach(name IN LISTS names)
  execute_process(COMMAND ${CTEST} -N --test-dir ${BUILD_DIR} -R "^${name}" OUTPUT_VARIABLE listing
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ctest -N failed (${rc}) in ${BUILD_DIR}")
  endif()
  string(REGEX MATCH "Total Tests: ([0-9]+)" total "${listing}")
  if(NOT CMAKE_MATCH_1 EQUAL 1)
    message(FATAL_ERROR "${PRESETS}: the asan preset leaves out the test named \"${name}...\", which matches "
                        "${CMAKE_MATCH_1} tests instead of 1: rename it there with the test case")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
message(STATUS "the asan preset leaves out ${checked} test cases by name, each of them registered once")
