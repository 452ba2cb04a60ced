#!/usr/bin/env bash
# Downloads kbench's Debian packages as .deb files, on a machine with network access, for a GPU
# host without one.
# Usage: scripts/bundle-deps.sh [DIR]      (default DIR: .deps; the files are ~52 MB)
# Then copy DIR to the GPU host and run scripts/install-bundle.sh DIR there.
# Only the libraries kbench compiles against are bundled (headers, CMake configs and the shared
# libraries they need); the build tools (cmake, ninja, g++, python3 with pandas and matplotlib) are
# expected on the GPU host already.
set -euo pipefail
dir="${1:-.deps}"
mkdir -p "$dir"
cd "$dir"
pkgs=(zlib1g-dev libfmt-dev libfmt9 nlohmann-json3-dev libeigen3-dev libcli11-dev
      libbenchmark-dev libbenchmark1debian libgtest-dev
      # optional dgbsv baseline (li2012): LAPACKE and OpenBLAS with their dependencies, ~13 MB
      liblapacke-dev liblapacke libtmglib-dev libtmglib3 libopenblas-dev libopenblas0
      libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0
      # optional CA-GMRES reorderings (yamazaki2014): METIS, and Boost.Graph with the packages
      # `dpkg -i` needs for it (Boost headers, regex/serialization/test, ICU), ~34 MB
      libmetis-dev libmetis5
      libboost-graph-dev libboost-graph1.74-dev libboost-graph1.74.0 libboost1.74-dev
      libboost-regex1.74-dev libboost-regex1.74.0 libboost-serialization1.74-dev
      libboost-serialization1.74.0 libboost-test1.74-dev libboost-test1.74.0
      libicu-dev libicu72 icu-devtools
      # optional hypergraph partitioning (zianekhodja2014 Sec. 6.2): Zoltan with PT-Scotch and
      # Scotch, ~1.5 MB (OpenMPI and zlib/bzip2/xz, which they link, are on the GPU host already;
      # trilinos-dev is the headers' version file, which `dpkg -i` needs)
      libtrilinos-zoltan-dev libtrilinos-zoltan-13.2 trilinos-dev libptscotch-7.0 libscotch-7.0)
# Not bundled: libcurl4-openssl-dev and libarchive-dev (optional, `kbench matrix fetch`). A GPU
# host without network cannot download matrices anyway, and Debian 12's libcurl would drag its
# TLS/LDAP/SSH libraries onto an Ubuntu image; fetch the matrices on a connected machine
# (kbench matrix fetch --set S --matrix-dir DIR) and carry DIR as KBENCH_MATRIX_DIR. Without
# them CMake leaves `matrix fetch` out (it says which packages to install) and skips its tests.
apt-get download "${pkgs[@]}"
ls -1 "$PWD"/*.deb
