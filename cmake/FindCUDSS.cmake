# Finds cuDSS, NVIDIA's GPU sparse direct solver (not a Debian package), for the cuDSS baseline
# of the li2012 study (solvers/spike/cudss_baseline.hpp).
#
# Looks, in order, in
#  1. CUDSS_ROOT (-DCUDSS_ROOT=DIR or the environment variable): DIR/include/cudss.h and
#     DIR/lib/libcudss.so* (or lib64/);
#  2. the Python wheel nvidia-cudss-cu<CUDA major> (pip install nvidia-cudss-cu13): it unpacks
#     into site-packages/nvidia/cu13/include/cudss.h and site-packages/nvidia/cu13/lib/libcudss.so.1
#     (no unversioned libcudss.so). The site-packages of `python3` on PATH, of KBENCH_PYTHON and
#     of CUDSS_PYTHON (an interpreter you name) are asked with `import nvidia; nvidia.__path__`;
#  3. the system paths (e.g. NVIDIA's tarball or Debian repository install).
#
# Defines CUDSS_FOUND, CUDSS_INCLUDE_DIR, CUDSS_LIBRARY, CUDSS_VERSION and the imported target
# cudss::cudss (linking it also links cuBLAS and NVRTC, which libcudss needs).

set(_cudss_major 13)
if(CUDAToolkit_VERSION_MAJOR)
  set(_cudss_major ${CUDAToolkit_VERSION_MAJOR})
endif()
include(${CMAKE_CURRENT_LIST_DIR}/WheelHints.cmake)
kbench_wheel_hints(_cudss_hints CUDSS cu${_cudss_major} cudss)

find_path(CUDSS_INCLUDE_DIR cudss.h HINTS ${_cudss_hints} PATH_SUFFIXES include)
find_library(CUDSS_LIBRARY NAMES cudss libcudss.so.1 libcudss.so.0
             HINTS ${_cudss_hints} PATH_SUFFIXES lib lib64)

if(CUDSS_INCLUDE_DIR AND EXISTS "${CUDSS_INCLUDE_DIR}/cudss.h")
  file(STRINGS "${CUDSS_INCLUDE_DIR}/cudss.h" _v REGEX "#define CUDSS_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define CUDSS_VERSION_${_part} +([0-9]+).*" "\\1" _cudss_${_part} "${_v}")
  endforeach()
  set(CUDSS_VERSION "${_cudss_MAJOR}.${_cudss_MINOR}.${_cudss_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDSS REQUIRED_VARS CUDSS_LIBRARY CUDSS_INCLUDE_DIR
                                  VERSION_VAR CUDSS_VERSION)

if(CUDSS_FOUND AND NOT TARGET cudss::cudss)
  add_library(cudss::cudss SHARED IMPORTED)
  set_target_properties(cudss::cudss PROPERTIES
    IMPORTED_LOCATION "${CUDSS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUDSS_INCLUDE_DIR}")
  foreach(_dep cublas nvrtc)
    if(TARGET CUDA::${_dep})
      set_property(TARGET cudss::cudss APPEND PROPERTY INTERFACE_LINK_LIBRARIES CUDA::${_dep})
    endif()
  endforeach()
endif()
mark_as_advanced(CUDSS_INCLUDE_DIR CUDSS_LIBRARY)
