include(GoogleTest)

# kbench_add_test(NAME name SOURCES ... LIBS ... [GPU])
# One gtest executable per call. GPU tests get the ctest label `gpu` and are reported as skipped
# (not passed) when no CUDA device is present.
function(kbench_add_test)
  cmake_parse_arguments(T "GPU" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
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
