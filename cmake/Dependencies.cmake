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
