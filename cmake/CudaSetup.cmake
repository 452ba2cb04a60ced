# Runs before project(): locate nvcc and choose the CUDA architectures.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(_kbench_nvcc nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
  if(NOT _kbench_nvcc)
    message(FATAL_ERROR
      "nvcc not found. Install the CUDA toolkit (>= 12) at /usr/local/cuda, or pass "
      "-DCMAKE_CUDA_COMPILER=/path/to/nvcc.")
  endif()
  set(CMAKE_CUDA_COMPILER "${_kbench_nvcc}" CACHE FILEPATH "CUDA compiler")
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(_kbench_arch 90)
  find_program(_kbench_smi nvidia-smi)
  if(_kbench_smi)
    execute_process(COMMAND ${_kbench_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _cc RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0 AND _cc MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_kbench_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_kbench_arch} CACHE STRING "CUDA architectures to build for")
  message(STATUS "kbench: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} "
                 "(GPU present by default, 90 when none; override with -DCMAKE_CUDA_ARCHITECTURES)")
endif()
