# Baselines of the li2012 study (SPIKE::GPU), included from solvers/CMakeLists.txt: LAPACK dgbsv
# on the CPU (kbench_gbsv) and cuDSS on the GPU (kbench_cudss), each built only when
# cmake/Dependencies.cmake found its library. Paths are relative to solvers/.
if(KBENCH_HAVE_LAPACKE)
  add_library(kbench_gbsv spike/gbsv_baseline.cpp)
  target_include_directories(kbench_gbsv PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(kbench_gbsv PRIVATE kbench_lapacke)
  target_compile_definitions(kbench_gbsv PUBLIC KBENCH_HAVE_LAPACKE
    PRIVATE $<$<BOOL:${KBENCH_HAVE_OPENBLAS_THREADS}>:KBENCH_HAVE_OPENBLAS_THREADS>)
  if(KBENCH_BUILD_TESTS)
    kbench_add_test(NAME test_gbsv_baseline SOURCES test/test_gbsv_baseline.cpp
                    LIBS kbench_gbsv kbench_matrices)
  endif()
endif()

if(KBENCH_HAVE_CUDSS)
  add_library(kbench_cudss spike/cudss_baseline.cu)
  target_include_directories(kbench_cudss PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(kbench_cudss PUBLIC kbench_cuda_base cudss::cudss)
  target_compile_definitions(kbench_cudss PUBLIC KBENCH_HAVE_CUDSS)
  if(KBENCH_BUILD_TESTS)
    kbench_add_test(NAME test_cudss_baseline GPU SOURCES test/test_cudss_baseline.cpp
                    LIBS kbench_cudss kbench_matrices)
  endif()
endif()
