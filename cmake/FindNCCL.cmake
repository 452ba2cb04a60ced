# Finds NCCL, NVIDIA's collective communication library (not a Debian package), for the
# device-direct transport of the distributed layer (solvers/distributed/halo_exchange_gpu.hpp).
#
# Looks, in order, in
#  1. NCCL_ROOT (-DNCCL_ROOT=DIR or the environment variable): DIR/include/nccl.h and
#     DIR/lib/libnccl.so* (or lib64/);
#  2. the Python wheel nvidia-nccl-cu<CUDA major> (pip install nvidia-nccl-cu13): it unpacks
#     into site-packages/nvidia/nccl/include/nccl.h and site-packages/nvidia/nccl/lib/libnccl.so.2
#     (no unversioned libnccl.so). The site-packages of `python3` on PATH, of KBENCH_PYTHON and of
#     NCCL_PYTHON (an interpreter you name) are asked with `import nvidia; nvidia.__path__`;
#  3. the system paths (NVIDIA's libnccl-dev package, a tarball under a prefix, or a CUDA
#     toolkit install that ships NCCL).
# The library is looked for first beside the header found.
#
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION and the imported target
# nccl::nccl.

include(${CMAKE_CURRENT_LIST_DIR}/WheelHints.cmake)
kbench_wheel_hints(_nccl_hints NCCL nccl)

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
# The library beside the header found (a wheel's header with a system library, or the reverse,
# would mismatch); NAMES_PER_DIR so that a hint directory holding only libnccl.so.2 wins over a
# system directory's libnccl.so.
if(NCCL_INCLUDE_DIR)
  get_filename_component(_nccl_prefix "${NCCL_INCLUDE_DIR}" DIRECTORY)
  list(PREPEND _nccl_hints "${_nccl_prefix}")
endif()
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_hints}
             PATH_SUFFIXES lib lib64)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _v REGEX "#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} +([0-9]+).*" "\\1" _nccl_${_part} "${_v}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
                                  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET nccl::nccl)
  add_library(nccl::nccl SHARED IMPORTED)
  set_target_properties(nccl::nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  if(TARGET CUDA::cudart)
    set_property(TARGET nccl::nccl APPEND PROPERTY INTERFACE_LINK_LIBRARIES CUDA::cudart)
  endif()
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
