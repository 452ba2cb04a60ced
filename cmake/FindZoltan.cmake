# Finds Zoltan (Sandia's parallel partitioning library, part of Trilinos), for the parallel
# hypergraph partitioning of the distributed layer (solvers/distributed/hypergraph_partition.hpp,
# zianekhodja2014 Sec. 6.2). Zoltan is built on MPI: use it only after find_package(MPI).
#
# Looks, in order, in
#  1. ZOLTAN_ROOT (-DZOLTAN_ROOT=DIR or the environment variable): DIR/include/zoltan.h (or
#     DIR/include/trilinos/zoltan.h) and DIR/lib/libzoltan.* or DIR/lib/libtrilinos_zoltan.*
#     (or lib64/, lib/x86_64-linux-gnu/), e.g. a standalone Zoltan or a Trilinos install;
#  2. the system paths: Debian's libtrilinos-zoltan-dev puts the header in
#     /usr/include/trilinos/ and the library as libtrilinos_zoltan.so.
# The library must be shared (Debian's is): its own dependencies (PT-Scotch, MPI) come with it.
# -DCMAKE_DISABLE_FIND_PACKAGE_Zoltan=ON skips the search.
#
# Defines Zoltan_FOUND, ZOLTAN_INCLUDE_DIR, ZOLTAN_LIBRARY, Zoltan_VERSION (ZOLTAN_VERSION_NUMBER
# of zoltan.h, e.g. 3.90) and the imported target Zoltan::zoltan (with MPI::MPI_CXX when defined,
# since zoltan.h includes mpi.h).

set(_zoltan_hints)
foreach(_root "${ZOLTAN_ROOT}" "$ENV{ZOLTAN_ROOT}")
  if(_root)
    list(APPEND _zoltan_hints "${_root}")
  endif()
endforeach()

find_path(ZOLTAN_INCLUDE_DIR zoltan.h HINTS ${_zoltan_hints}
          PATH_SUFFIXES include include/trilinos trilinos)
# The library beside the header first (a ZOLTAN_ROOT header with a system library would mismatch).
if(ZOLTAN_INCLUDE_DIR)
  get_filename_component(_zoltan_prefix "${ZOLTAN_INCLUDE_DIR}" DIRECTORY)
  if(_zoltan_prefix MATCHES "/include$")  # .../include/trilinos -> ...
    get_filename_component(_zoltan_prefix "${_zoltan_prefix}" DIRECTORY)
  endif()
  list(APPEND _zoltan_hints "${_zoltan_prefix}")
endif()
find_library(ZOLTAN_LIBRARY NAMES zoltan trilinos_zoltan HINTS ${_zoltan_hints}
             PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE})

if(ZOLTAN_INCLUDE_DIR AND EXISTS "${ZOLTAN_INCLUDE_DIR}/zoltan.h")
  file(STRINGS "${ZOLTAN_INCLUDE_DIR}/zoltan.h" _v REGEX "#define ZOLTAN_VERSION_NUMBER ")
  string(REGEX REPLACE ".*#define ZOLTAN_VERSION_NUMBER +([0-9.]+).*" "\\1" Zoltan_VERSION "${_v}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Zoltan REQUIRED_VARS ZOLTAN_LIBRARY ZOLTAN_INCLUDE_DIR
  VERSION_VAR Zoltan_VERSION
  REASON_FAILURE_MESSAGE "install the Debian package 'libtrilinos-zoltan-dev', or pass -DZOLTAN_ROOT=DIR")

if(Zoltan_FOUND AND NOT TARGET Zoltan::zoltan)
  add_library(Zoltan::zoltan UNKNOWN IMPORTED)
  set_target_properties(Zoltan::zoltan PROPERTIES
    IMPORTED_LOCATION "${ZOLTAN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZOLTAN_INCLUDE_DIR}")
  if(TARGET MPI::MPI_CXX)
    set_property(TARGET Zoltan::zoltan APPEND PROPERTY INTERFACE_LINK_LIBRARIES MPI::MPI_CXX)
  endif()
endif()
mark_as_advanced(ZOLTAN_INCLUDE_DIR ZOLTAN_LIBRARY)
