# models/fit: learning a site's predictor from its own telemetry (issue #4): power-log reading, square-wave
# segmentation, records, feature selection, symbolic regression, baselines, evaluation, the "sr" predictor.
target_sources(fleetwatt_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/telemetry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/segmentation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/dataset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/symbolic_regression.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/baselines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/evaluation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/sr_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fit/sr_predictor.cpp
)
target_link_libraries(fleetwatt_models PRIVATE fmt::fmt Threads::Threads)

# Benchmarks of population evaluation speed and of the default predictor's speed (Google Benchmark, when
# installed): speed targets live here, never in timed tests.
find_package(benchmark QUIET)
if(benchmark_FOUND)
  add_executable(bench_sr_eval ${CMAKE_CURRENT_LIST_DIR}/bench/sr_eval_bench.cpp)
  target_link_libraries(bench_sr_eval PRIVATE fleetwatt::models benchmark::benchmark fleetwatt_warnings)
  add_executable(bench_predict ${CMAKE_CURRENT_LIST_DIR}/bench/predict_bench.cpp)
  target_link_libraries(bench_predict PRIVATE fleetwatt::models benchmark::benchmark fleetwatt_warnings)
endif()
