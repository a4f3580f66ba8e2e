# tsan_tests (issue 16): the unit tests that start threads or processes,
# built with -fsanitize=thread (-DACCEL_TSAN=ON, scripts/sanitize_and_fuzz.sh):
# the progress display (its ticker thread against the run's callbacks), the
# engine protocol client and server (ProcessEngine against fake engine
# scripts, the worker runner starting fake workers, a dying engine) and the
# worker protocol parser. Only these: the whole unit_tests under TSan would
# add minutes of build to the stage for code that starts no thread.
add_executable(tsan_tests
  unit/progress_display_test.cpp unit/engine_protocol_test.cpp unit/worker_protocol_test.cpp
  ${CMAKE_SOURCE_DIR}/src/cli/progress.cpp)
target_link_libraries(tsan_tests PRIVATE accel_engine_api GTest::gtest GTest::gtest_main)
target_compile_definitions(tsan_tests PRIVATE
  ACCEL_TEST_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/fixtures"
  ACCEL_SHARED_ERRORS="${ACCEL_SHARED_ERRORS}"
  ACCEL_FUZZ_DIR="${CMAKE_CURRENT_SOURCE_DIR}/fuzz"
  ACCEL_KB_DIR="${CMAKE_SOURCE_DIR}/kb")
