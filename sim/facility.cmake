# Weather-driven facility cooling model (issue 13).
target_sources(fleetwatt_sim PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/facility_model.cpp)
target_sources(fleetwatt_sim PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/site_battery.cpp)
target_sources(fleetwatt_sim PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/battery_bank.cpp)
