# Run at every build (cmake -P): writes version.hpp with the current git commit, marked -dirty when the
# working tree has changes. configure_file leaves the file untouched when nothing changed, so an unchanged
# commit triggers no rebuild.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE FLEETWATT_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE git_result)
if(NOT git_result EQUAL 0 OR NOT FLEETWATT_GIT_COMMIT)
  set(FLEETWATT_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty EQUAL 1)
    string(APPEND FLEETWATT_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
