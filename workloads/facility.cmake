# Outdoor weather for the facility's cooling model (issue 13).
target_sources(fleetwatt_workloads PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/weather.cpp)
