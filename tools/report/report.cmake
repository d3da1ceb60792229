# `fleetwatt report` (included by tools/CMakeLists.txt): cmd_report.cpp runs the plotting module fleetwatt_report.py in place (from the source
# tree) with a Python 3 that has Debian's matplotlib, numpy and h5py (tools/install-deps.sh installs them).
# Found here once per configure: FLEETWATT_REPORT_PYTHON if set, else /usr/bin/python3 (Debian's, which
# has the packages even when a pyenv python3 comes first on PATH), else python3 on PATH.
set(FLEETWATT_REPORT_PYTHON "" CACHE FILEPATH
    "Python 3 with matplotlib, numpy and h5py for fleetwatt report (empty: search /usr/bin/python3, then PATH)")
set(_fleetwatt_report_python "")
if(FLEETWATT_REPORT_PYTHON)
  set(_fleetwatt_report_candidates ${FLEETWATT_REPORT_PYTHON})
else()
  find_program(_fleetwatt_path_python3 NAMES python3 NO_CACHE)
  set(_fleetwatt_report_candidates /usr/bin/python3 ${_fleetwatt_path_python3})
endif()
foreach(_python IN LISTS _fleetwatt_report_candidates)
  if(EXISTS ${_python})
    execute_process(COMMAND ${_python} -c "import matplotlib, numpy, h5py"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(_fleetwatt_report_python ${_python})
      break()
    endif()
  endif()
endforeach()
if(_fleetwatt_report_python)
  message(STATUS "fleetwatt report: figures drawn with ${_fleetwatt_report_python}")
else()
  message(WARNING "fleetwatt report: no Python 3 with matplotlib, numpy and h5py among "
                  "${_fleetwatt_report_candidates}; `fleetwatt report` and its tests will fail until you run "
                  "tools/install-deps.sh (python3-matplotlib python3-numpy python3-h5py) and re-run cmake, "
                  "or set -DFLEETWATT_REPORT_PYTHON=...")
endif()
target_sources(fleetwatt PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_report.cpp)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/cmd_report.cpp PROPERTIES COMPILE_DEFINITIONS
  "FLEETWATT_REPORT_PYTHON=\"${_fleetwatt_report_python}\";FLEETWATT_REPORT_SCRIPT=\"${CMAKE_CURRENT_LIST_DIR}/fleetwatt_report.py\"")
# The tests look at the page with the same interpreter (tests/tools/cli_report_test.cpp).
set(FLEETWATT_REPORT_PYTHON_FOUND "${_fleetwatt_report_python}" CACHE INTERNAL "Python used by fleetwatt report")
