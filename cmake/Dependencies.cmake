# Every dependency comes from a Debian 12 package or the CUDA toolkit. A missing one stops the
# configuration with the name of the package to install (scripts/install-deps.sh installs all).
macro(kbench_require name debian_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "kbench needs ${name}: install the Debian package '${debian_package}' "
                        "(apt-get install ${debian_package}, or run scripts/install-deps.sh).")
  endif()
endmacro()

kbench_require(CUDAToolkit "the CUDA toolkit >= 12 (https://developer.nvidia.com/cuda-downloads)" 12)
foreach(_lib cudart cublas cusparse)
  if(NOT TARGET CUDA::${_lib})
    message(FATAL_ERROR "The CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR} lacks lib${_lib}.")
  endif()
endforeach()
if(NOT TARGET CUDA::nvtx3)
  find_path(KBENCH_NVTX3_INCLUDE nvtx3/nvtx3.hpp HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(NOT KBENCH_NVTX3_INCLUDE)
    message(FATAL_ERROR "The NVTX3 headers (nvtx3/nvtx3.hpp) are missing from the CUDA toolkit.")
  endif()
  add_library(kbench_nvtx3 INTERFACE)
  target_include_directories(kbench_nvtx3 INTERFACE ${KBENCH_NVTX3_INCLUDE})
  add_library(CUDA::nvtx3 ALIAS kbench_nvtx3)
endif()

kbench_require(fmt libfmt-dev)
kbench_require(nlohmann_json nlohmann-json3-dev)
kbench_require(benchmark libbenchmark-dev)
kbench_require(CLI11 libcli11-dev)
kbench_require(Eigen3 libeigen3-dev)
kbench_require(ZLIB zlib1g-dev)
if(KBENCH_BUILD_TESTS)
  kbench_require(GTest libgtest-dev)
endif()

# The analysis scripts need a Python 3 with pandas and matplotlib. Prefer Debian's interpreter,
# whose python3-pandas and python3-matplotlib packages provide them.
if(NOT KBENCH_PYTHON)
  foreach(_py /usr/bin/python3 python3)
    find_program(_kbench_py NAMES ${_py} NO_CACHE)
    if(_kbench_py)
      execute_process(COMMAND ${_kbench_py} -c "import pandas, matplotlib"
                      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(KBENCH_PYTHON "${_kbench_py}" CACHE FILEPATH "Python 3 with pandas and matplotlib")
        break()
      endif()
    endif()
    unset(_kbench_py)
  endforeach()
endif()
if(NOT KBENCH_PYTHON)
  message(FATAL_ERROR "kbench's analysis needs Python 3 with pandas and matplotlib: install the "
                      "Debian packages 'python3-pandas' and 'python3-matplotlib', or pass "
                      "-DKBENCH_PYTHON=/path/to/python3 for an interpreter that has them.")
endif()
message(STATUS "kbench: analysis interpreter ${KBENCH_PYTHON}")

# Optional: the baselines of the li2012 study (solvers/spike/baselines.cmake). Each is skipped,
# with a message, when its library is missing; nothing else depends on them.
# LAPACKE + OpenBLAS: the CPU baseline, LAPACK dgbsv (KBENCH_HAVE_LAPACKE).
find_path(KBENCH_LAPACKE_INCLUDE_DIR lapacke.h)
find_library(KBENCH_LAPACKE_LIBRARY lapacke)
find_library(KBENCH_OPENBLAS_LIBRARY NAMES openblas
             PATH_SUFFIXES openblas-pthread openblas-openmp openblas-serial)
if(KBENCH_LAPACKE_INCLUDE_DIR AND KBENCH_LAPACKE_LIBRARY AND KBENCH_OPENBLAS_LIBRARY)
  set(KBENCH_HAVE_LAPACKE ON)
  add_library(kbench_lapacke INTERFACE)
  target_include_directories(kbench_lapacke INTERFACE ${KBENCH_LAPACKE_INCLUDE_DIR})
  # OpenBLAS after LAPACKE: its dgbsv_ comes first in the symbol search.
  target_link_libraries(kbench_lapacke INTERFACE ${KBENCH_LAPACKE_LIBRARY} ${KBENCH_OPENBLAS_LIBRARY})
  include(CheckFunctionExists)
  set(CMAKE_REQUIRED_LIBRARIES ${KBENCH_OPENBLAS_LIBRARY})
  check_function_exists(openblas_set_num_threads KBENCH_HAVE_OPENBLAS_THREADS)
  unset(CMAKE_REQUIRED_LIBRARIES)
  message(STATUS "kbench: LAPACKE ${KBENCH_LAPACKE_LIBRARY} with OpenBLAS "
                 "${KBENCH_OPENBLAS_LIBRARY}: the dgbsv baseline is built")
else()
  set(KBENCH_HAVE_LAPACKE OFF)
  message(STATUS "kbench: LAPACKE or OpenBLAS not found: install the Debian packages "
                 "'liblapacke-dev' and 'libopenblas-dev'; the dgbsv baseline is skipped")
endif()

# cuDSS: the GPU sparse direct baseline (KBENCH_HAVE_CUDSS); cmake/FindCUDSS.cmake.
list(APPEND CMAKE_MODULE_PATH ${PROJECT_SOURCE_DIR}/cmake)
find_package(CUDSS QUIET)
if(CUDSS_FOUND)
  set(KBENCH_HAVE_CUDSS ON)
  message(STATUS "kbench: cuDSS ${CUDSS_VERSION} at ${CUDSS_LIBRARY}: the cuDSS baseline is built")
else()
  set(KBENCH_HAVE_CUDSS OFF)
  message(STATUS "kbench: cuDSS not found: pip install nvidia-cudss-cu13 or -DCUDSS_ROOT=...; "
                 "the cuDSS baseline is skipped")
endif()

# Optional: the reorderings before distribution of the yamazaki2014 CA-GMRES study
# (matrices/reorder.hpp). Without them the library still builds; the functions throw
# std::runtime_error naming the package and their tests are skipped.
# Boost.Graph (header-only here): reverse Cuthill-McKee (KBENCH_HAVE_BOOST_GRAPH).
if(POLICY CMP0167)
  cmake_policy(SET CMP0167 NEW)  # CMake >= 3.30: Boost's own BoostConfig.cmake, not FindBoost
endif()
find_package(Boost 1.70 QUIET)
if(Boost_FOUND)
  find_path(KBENCH_BOOST_GRAPH_INCLUDE_DIR boost/graph/cuthill_mckee_ordering.hpp
            HINTS ${Boost_INCLUDE_DIRS})
endif()
if(Boost_FOUND AND KBENCH_BOOST_GRAPH_INCLUDE_DIR)
  set(KBENCH_HAVE_BOOST_GRAPH ON)
  add_library(kbench_boost_graph INTERFACE)
  target_include_directories(kbench_boost_graph SYSTEM INTERFACE ${KBENCH_BOOST_GRAPH_INCLUDE_DIR})
  message(STATUS "kbench: Boost.Graph ${Boost_VERSION} at ${KBENCH_BOOST_GRAPH_INCLUDE_DIR}: "
                 "the RCM reordering is built")
else()
  set(KBENCH_HAVE_BOOST_GRAPH OFF)
  message(STATUS "kbench: Boost.Graph not found: install the Debian package 'libboost-graph-dev'; "
                 "the RCM reordering is skipped")
endif()
# METIS 5: k-way graph partitioning (KBENCH_HAVE_METIS).
find_path(KBENCH_METIS_INCLUDE_DIR metis.h)
find_library(KBENCH_METIS_LIBRARY metis)
if(KBENCH_METIS_INCLUDE_DIR AND KBENCH_METIS_LIBRARY)
  set(KBENCH_HAVE_METIS ON)
  add_library(kbench_metis INTERFACE)
  target_include_directories(kbench_metis SYSTEM INTERFACE ${KBENCH_METIS_INCLUDE_DIR})
  target_link_libraries(kbench_metis INTERFACE ${KBENCH_METIS_LIBRARY})
  message(STATUS "kbench: METIS ${KBENCH_METIS_LIBRARY}: the k-way partitioning is built")
else()
  set(KBENCH_HAVE_METIS OFF)
  message(STATUS "kbench: METIS not found: install the Debian package 'libmetis-dev'; "
                 "the k-way partitioning is skipped")
endif()

# Optional: the distributed layer of multi-GPU GMRES / CA-GMRES (solvers/distributed/; one MPI
# rank per GPU, yamazaki2014 Sec. IV, zianekhodja2014 Sec. 4). Without MPI it is left out with
# its tests (KBENCH_HAVE_MPI); without NCCL only its host-staged transport is built
# (KBENCH_HAVE_NCCL), without Zoltan no hypergraph partitioning (KBENCH_HAVE_ZOLTAN). MPI:
# Debian libopenmpi-dev (OpenMPI, with mpirun from openmpi-bin), only its C API is used.
set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "Skip the MPI C++ bindings (kbench uses the C API)")
set(MPI_DETERMINE_LIBRARY_VERSION ON)  # MPI_CXX_LIBRARY_VERSION_STRING: which MPI (OpenMPI?)
find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  set(KBENCH_HAVE_MPI ON)
  string(REGEX MATCH "^[^,\n]*" _kbench_mpi_name "${MPI_CXX_LIBRARY_VERSION_STRING}")
  if(MPIEXEC_EXECUTABLE)
    message(STATUS "kbench: MPI ${MPI_CXX_VERSION} (${_kbench_mpi_name}, launcher "
                   "${MPIEXEC_EXECUTABLE}): the distributed layer is built")
  else()
    message(STATUS "kbench: MPI ${MPI_CXX_VERSION} without a launcher (mpiexec/mpirun, Debian "
                   "'openmpi-bin'): the distributed layer is built, its tests run on 1 rank")
  endif()
  # NCCL: the device-direct transport (cmake/FindNCCL.cmake).
  find_package(NCCL QUIET)
  if(NCCL_FOUND)
    set(KBENCH_HAVE_NCCL ON)
    message(STATUS "kbench: NCCL ${NCCL_VERSION} at ${NCCL_LIBRARY}: the NCCL transport is built")
  else()
    set(KBENCH_HAVE_NCCL OFF)
    message(STATUS "kbench: NCCL not found: pip install nvidia-nccl-cu13 or -DNCCL_ROOT=...; the "
                   "distributed layer has only its host-staged (MPI) transport")
  endif()
  # Zoltan: the parallel hypergraph partitioning of zianekhodja2014 Sec. 6.2
  # (solvers/distributed/hypergraph_partition.hpp; cmake/FindZoltan.cmake, KBENCH_HAVE_ZOLTAN).
  find_package(Zoltan QUIET)
  if(Zoltan_FOUND)
    set(KBENCH_HAVE_ZOLTAN ON)
    message(STATUS "kbench: Zoltan ${Zoltan_VERSION} at ${ZOLTAN_LIBRARY}: the hypergraph "
                   "partitioning is built")
  else()
    set(KBENCH_HAVE_ZOLTAN OFF)
    message(STATUS "kbench: Zoltan not found: install the Debian package "
                   "'libtrilinos-zoltan-dev' or pass -DZOLTAN_ROOT=DIR; the hypergraph "
                   "partitioning is skipped")
  endif()
else()
  set(KBENCH_HAVE_MPI OFF)
  set(KBENCH_HAVE_NCCL OFF)
  set(KBENCH_HAVE_ZOLTAN OFF)
  message(STATUS "kbench: MPI not found: install the Debian package 'libopenmpi-dev'; the "
                 "distributed layer (solvers/distributed) and its tests are skipped")
endif()

# Optional: `kbench matrix fetch`, downloading SuiteSparse collection matrices
# (matrices/suitesparse_fetch.hpp): libcurl for HTTP, libarchive for the .tar.gz
# (KBENCH_HAVE_SUITESPARSE_FETCH). Without them the command says which packages to install and
# its tests are skipped.
find_package(CURL QUIET)
find_package(LibArchive QUIET)
if(CURL_FOUND AND LibArchive_FOUND)
  set(KBENCH_HAVE_SUITESPARSE_FETCH ON)
  message(STATUS "kbench: libcurl ${CURL_VERSION_STRING} and libarchive ${LibArchive_VERSION}: "
                 "`kbench matrix fetch` is built")
else()
  set(KBENCH_HAVE_SUITESPARSE_FETCH OFF)
  message(STATUS "kbench: libcurl or libarchive not found: install the Debian packages "
                 "'libcurl4-openssl-dev' and 'libarchive-dev'; `kbench matrix fetch` is "
                 "left out (it says so) and its tests are skipped")
endif()

# Optional: Trilinos Belos, the peer of the CPU block and pseudo-block GMRES (issue 28;
# harness/studies/peers/peers_belos.hpp, KBENCH_HAVE_BELOS), through Epetra on one process. Debian:
# libtrilinos-belos-dev, libtrilinos-epetra-dev (with their Teuchos, Kokkos, Thyra and RTOp
# headers). Trilinos' own BelosConfig.cmake pulls in every package Debian built Belos with, most
# of them not installed by these, so the headers and the few libraries used are found directly.
# Debian's Trilinos is built with MPI (Epetra's headers include mpi.h).
find_path(KBENCH_BELOS_INCLUDE_DIR BelosBlockGmresSolMgr.hpp PATH_SUFFIXES trilinos)
find_path(KBENCH_TEUCHOS_INCLUDE_DIR Teuchos_ConfigDefs.hpp PATH_SUFFIXES trilinos)
find_path(KBENCH_THYRA_INCLUDE_DIR Thyra_MultiVectorBase.hpp PATH_SUFFIXES trilinos)
set(_kbench_belos_libs trilinos_belosepetra trilinos_belos trilinos_epetra
    trilinos_teuchosnumerics trilinos_teuchoscomm trilinos_teuchosparameterlist
    trilinos_teuchoscore trilinos_teuchosremainder trilinos_kokkoscore)
set(_kbench_belos_found ${KBENCH_HAVE_MPI})
foreach(_lib ${_kbench_belos_libs})
  find_library(KBENCH_${_lib}_LIBRARY ${_lib})
  if(NOT KBENCH_${_lib}_LIBRARY)
    set(_kbench_belos_found OFF)
  endif()
endforeach()
if(_kbench_belos_found AND KBENCH_BELOS_INCLUDE_DIR AND KBENCH_TEUCHOS_INCLUDE_DIR
   AND KBENCH_THYRA_INCLUDE_DIR)
  set(KBENCH_HAVE_BELOS ON)
  add_library(kbench_belos_libs INTERFACE)
  target_include_directories(kbench_belos_libs SYSTEM INTERFACE ${KBENCH_BELOS_INCLUDE_DIR})
  foreach(_lib ${_kbench_belos_libs})
    target_link_libraries(kbench_belos_libs INTERFACE ${KBENCH_${_lib}_LIBRARY})
  endforeach()
  # Only MPI's C API: OpenMPI's and MPICH's C++ bindings stay out of Epetra's headers.
  target_link_libraries(kbench_belos_libs INTERFACE MPI::MPI_CXX)
  target_compile_definitions(kbench_belos_libs INTERFACE KBENCH_HAVE_BELOS OMPI_SKIP_MPICXX=1
                             MPICH_SKIP_MPICXX=1)
  message(STATUS "kbench: Trilinos Belos at ${KBENCH_BELOS_INCLUDE_DIR}: the Belos peer of "
                 "block GMRES is built")
else()
  set(KBENCH_HAVE_BELOS OFF)
  message(STATUS "kbench: Trilinos Belos not found (or MPI missing): install the Debian packages "
                 "'libtrilinos-belos-dev' and 'libtrilinos-epetra-dev'; `kbench peers belos` "
                 "says so and its test is skipped")
endif()
