include(GoogleTest)

# Test sources are compiled at -O1: tests time nothing (performance is measured in benchmarks,
# which keep the build type's flags), and -O1 compiles the Eigen- and gtest-heavy test sources in
# about half the time of -O3. The libraries they test keep the build type's flags.
function(kbench_test_compile_options target)
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-O1>)
endfunction()

# kbench_add_test(NAME name SOURCES ... LIBS ... [GPU])
# One gtest executable per call. GPU tests get the ctest label `gpu` and are reported as skipped
# (not passed) when no CUDA device is present.
function(kbench_add_test)
  cmake_parse_arguments(T "GPU" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  kbench_test_compile_options(${T_NAME})
  set(_labels cpu)
  if(T_GPU)
    set(_labels gpu)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "${_labels}"
    SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    ENVIRONMENT "KBENCH_MATRIX_DIR=${KBENCH_MATRIX_DIR};KBENCH_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
