# Trace readers, inference of missing job fields, grid signals and cluster-calibrated generators (issue 6).
find_package(nlohmann_json 3 REQUIRED)
target_sources(fleetwatt_workloads PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/src/trace_text.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/trace_csv_formats.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/trace_philly.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/job_table_csv.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/job_inference.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/trace_reader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/grid_signal.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cluster_presets.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/replay.cpp
)
target_link_libraries(fleetwatt_workloads PRIVATE nlohmann_json::nlohmann_json)
