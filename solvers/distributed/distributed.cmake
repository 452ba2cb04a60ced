# The distributed layer (solvers/distributed/): one MPI rank per GPU, row-block distribution,
# halo exchange over MPI (host-staged) or NCCL, distributed SpMV. Included from
# solvers/CMakeLists.txt; built only when cmake/Dependencies.cmake found MPI (KBENCH_HAVE_MPI),
# its NCCL transport only when it found NCCL (KBENCH_HAVE_NCCL), its hypergraph partitioning only
# when it found Zoltan (KBENCH_HAVE_ZOLTAN). Paths are relative to solvers/.
if(NOT KBENCH_HAVE_MPI)
  return()
endif()

# The kernels (pack and scatter-add, Jacobi scaling) are compiled apart, without MPI's flags and
# headers (nvcc never sees mpi.h); pack_reference.cpp holds their CPU twins.
add_library(kbench_distributed_pack OBJECT distributed/pack.cu distributed/pack_reference.cpp
            distributed/diagonal_scale.cu distributed/mpk_kernels.cu)
target_include_directories(kbench_distributed_pack PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(kbench_distributed_pack PUBLIC kbench_cuda_base)
target_compile_options(kbench_distributed_pack PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
set_target_properties(kbench_distributed_pack PROPERTIES POSITION_INDEPENDENT_CODE ON)

add_library(kbench_distributed
  distributed/communicator.cpp
  distributed/row_distribution.cpp
  distributed/row_block.cpp
  distributed/interior_boundary.cpp
  distributed/halo_exchange.cpp
  distributed/halo_exchange_gpu.cpp
  distributed/shared_staging.cpp
  distributed/distributed_spmv.cpp
  distributed/distributed_gmres.cpp
  distributed/distributed_mpk.cpp
  distributed/distributed_ca_gmres.cpp
  $<TARGET_OBJECTS:kbench_distributed_pack>)
target_include_directories(kbench_distributed PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(kbench_distributed PUBLIC MPI::MPI_CXX kbench_kernels kbench_matrices
                      kbench_cuda_base kbench_solvers)
target_compile_definitions(kbench_distributed PUBLIC KBENCH_HAVE_MPI=1)
# The CPU ranks' dense block products of CA-GMRES (distributed_ca_gmres.cpp); no OpenMP: one
# rank per core.
target_link_libraries(kbench_distributed PRIVATE Eigen3::Eigen)
if(KBENCH_HAVE_NCCL)
  target_link_libraries(kbench_distributed PRIVATE nccl::nccl)
  target_compile_definitions(kbench_distributed PRIVATE KBENCH_HAVE_NCCL=1)
endif()
# The hypergraph partitioning (Zoltan PHG) only with Zoltan; PUBLIC so that
# hypergraph_partition.hpp declares it, or defines its throwing stub, in every user.
if(KBENCH_HAVE_ZOLTAN)
  target_sources(kbench_distributed PRIVATE distributed/hypergraph_partition.cpp)
  target_link_libraries(kbench_distributed PRIVATE Zoltan::zoltan)
  target_compile_definitions(kbench_distributed PUBLIC KBENCH_HAVE_ZOLTAN=1)
endif()

# kbench_add_mpi_test(NAME name SOURCES ... LIBS ... RANKS n... [GPU])
# One gtest executable (its own main: solvers/test/mpi_gtest.hpp), one ctest per rank count,
# `name_np<n>`, run as `mpiexec -n <n> name`. Labels `cpu` or `gpu`, plus `mpi`; a timeout so a
# rank stuck in a collective fails the test instead of hanging it; PROCESSORS = n so that
# `ctest -j` counts the ranks. For OpenMPI the environment allows running as root (CI runs in a
# container as root) and more ranks than cores (CI has 2 cores; 3 ranks are tested); other MPIs
# ignore these variables. Without a launcher only the 1-rank test is registered, run directly.
function(kbench_add_mpi_test)
  cmake_parse_arguments(T "GPU" "NAME" "SOURCES;LIBS;RANKS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  kbench_test_compile_options(${T_NAME})
  set(_labels cpu mpi)
  if(T_GPU)
    set(_labels gpu mpi)
  endif()
  set(_env "KBENCH_MATRIX_DIR=${KBENCH_MATRIX_DIR}" "KBENCH_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "Open MPI")
    list(APPEND _env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
         OMPI_MCA_rmaps_base_oversubscribe=1)
  endif()
  foreach(_n IN LISTS T_RANKS)
    if(MPIEXEC_EXECUTABLE)
      set(_cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_n} ${MPIEXEC_PREFLAGS}
               $<TARGET_FILE:${T_NAME}> ${MPIEXEC_POSTFLAGS})
    elseif(_n EQUAL 1)
      set(_cmd $<TARGET_FILE:${T_NAME}>)
    else()
      continue()
    endif()
    add_test(NAME ${T_NAME}_np${_n} COMMAND ${_cmd})
    set_tests_properties(${T_NAME}_np${_n} PROPERTIES
      LABELS "${_labels}"
      TIMEOUT 60
      PROCESSORS ${_n}
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
      ENVIRONMENT "${_env}")
  endforeach()
endfunction()

if(KBENCH_BUILD_TESTS)
  # Host-only and single-GPU parts, no MPI calls: plain tests (labels cpu / gpu, not mpi).
  # The shared-memory staging's planning (header only, no MPI at run time).
  kbench_add_test(NAME test_shared_staging_plan SOURCES test/test_shared_staging_plan.cpp
                  LIBS kbench_matrices)
  kbench_add_test(NAME test_interior_boundary SOURCES test/test_interior_boundary.cpp
                  LIBS kbench_distributed kbench_matrices kbench_kernels)
  kbench_add_test(NAME test_distributed_pack_gpu GPU SOURCES test/test_distributed_pack_gpu.cpp
                  LIBS kbench_distributed)
  kbench_add_mpi_test(NAME test_distributed_cpu SOURCES test/test_distributed_cpu.cpp
                      LIBS kbench_distributed kbench_matrices kbench_kernels RANKS 1 2 3)
  kbench_add_mpi_test(NAME test_row_block SOURCES test/test_row_block.cpp
                      LIBS kbench_distributed kbench_matrices kbench_kernels RANKS 1 2 3)
  kbench_add_mpi_test(NAME test_distributed_gpu GPU SOURCES test/test_distributed_gpu.cpp
                      LIBS kbench_distributed kbench_matrices kbench_kernels RANKS 1 2)
  kbench_add_mpi_test(NAME test_distributed_gmres_cpu SOURCES test/test_distributed_gmres_cpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2 3)
  kbench_add_mpi_test(NAME test_distributed_gmres_gpu GPU
                      SOURCES test/test_distributed_gmres_gpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2)
  kbench_add_mpi_test(NAME test_distributed_mpk_cpu SOURCES test/test_distributed_mpk_cpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2 3)
  kbench_add_mpi_test(NAME test_distributed_mpk_gpu GPU SOURCES test/test_distributed_mpk_gpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2)
  kbench_add_mpi_test(NAME test_distributed_ca_gmres_cpu
                      SOURCES test/test_distributed_ca_gmres_cpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2 3)
  kbench_add_mpi_test(NAME test_distributed_ca_gmres_gpu GPU
                      SOURCES test/test_distributed_ca_gmres_gpu.cpp
                      LIBS kbench_distributed kbench_solvers kbench_matrices RANKS 1 2)
  if(KBENCH_HAVE_ZOLTAN)
    kbench_add_mpi_test(NAME test_hypergraph_partition SOURCES test/test_hypergraph_partition.cpp
                        LIBS kbench_distributed kbench_matrices RANKS 1 2 3)
  endif()
endif()
