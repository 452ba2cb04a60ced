// The OpenMP pragma of the CPU SPIKE's per-partition loops (spike_reference.cpp,
// spike_bicgstab.cpp): KBENCH_SPIKE_OMP(omp parallel for ...) stands for that pragma when the
// file is compiled with OpenMP (solvers/CMakeLists.txt links OpenMP::OpenMP_CXX when CMake
// finds it) and for nothing without it, so the loops then run serially without
// unknown-pragma warnings.
#pragma once

#ifdef _OPENMP
#define KBENCH_SPIKE_OMP(text) _Pragma(#text)
#else
#define KBENCH_SPIKE_OMP(text)
#endif
