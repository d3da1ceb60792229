# Scheduling policies beyond FIFO (issue 6): SJF, EASY backfilling, power cap, carbon-aware deferral,
# consolidation with node sleep, demand response.
target_sources(fleetwatt_sim PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/policies.cpp)
