# The scheduling policies, one file each (issue 6; split in issue 10): FIFO, SJF, EASY backfilling, power
# cap, carbon-aware deferral, consolidation with node sleep, demand response, and the power estimates they
# share. Listed explicitly; each file's registry entry is collected by scheduler_entries() (engine_setup.cpp).
target_sources(fleetwatt_sim PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/estimates.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/fifo.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/sjf.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/easy.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/powercap.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/carbon.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/consolidate.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/policies/dr.cpp
)
target_include_directories(fleetwatt_sim PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/policies)
