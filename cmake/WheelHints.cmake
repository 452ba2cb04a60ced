# kbench_wheel_hints(<out> <NAME> <subdir>...): search hints for a library that NVIDIA ships as a
# Python wheel (not a Debian package; used by FindCUDSS.cmake and FindNCCL.cmake), in this order:
#  1. <NAME>_ROOT, as a CMake variable and as an environment variable;
#  2. for each interpreter among <NAME>_PYTHON, KBENCH_PYTHON and `python3` on PATH, every folder
#     of its `nvidia` package (`import nvidia; nvidia.__path__`) joined with each <subdir>.
# Sets <out> in the caller's scope. An interpreter without the package adds nothing.
include_guard(GLOBAL)

function(kbench_wheel_hints out name)
  set(_hints)
  foreach(_root "${${name}_ROOT}" "$ENV{${name}_ROOT}")
    if(_root)
      list(APPEND _hints "${_root}")
    endif()
  endforeach()
  set(_pythons)
  foreach(_py "${${name}_PYTHON}" "${KBENCH_PYTHON}")
    if(_py)
      list(APPEND _pythons "${_py}")
    endif()
  endforeach()
  find_program(_path_python NAMES python3 NO_CACHE)
  if(_path_python)
    list(APPEND _pythons "${_path_python}")
  endif()
  list(REMOVE_DUPLICATES _pythons)
  foreach(_py IN LISTS _pythons)
    execute_process(
      COMMAND "${_py}" -c "import nvidia; print(';'.join(nvidia.__path__))"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_rc EQUAL 0 AND _dirs)
      foreach(_d IN LISTS _dirs)
        foreach(_sub IN LISTS ARGN)
          list(APPEND _hints "${_d}/${_sub}")
        endforeach()
      endforeach()
    endif()
  endforeach()
  set(${out} "${_hints}" PARENT_SCOPE)
endfunction()
