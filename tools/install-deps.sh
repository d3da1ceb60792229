#!/usr/bin/env bash
# Installs the Debian packages fleetwatt needs to build and test, only those missing (idempotent).
# Usage: tools/install-deps.sh        (as root, or with sudo available)
set -euo pipefail

packages=(
  g++ cmake make git
  libboost-graph-dev      # topologies (Boost.Graph)
  libeigen3-dev           # linear algebra, least squares, Levenberg-Marquardt
  libtomlplusplus-dev     # scenarios and model files
  libhdf5-dev             # result files (HDF5 C++ API)
  libdeflate-dev          # result files' chunks compressed (zlib format, faster than zlib)
  libcli11-dev            # the command line
  libfmt-dev              # formatting
  nlohmann-json3-dev      # the Philly trace reader (JSON)
  catch2                  # tests (Catch2 v2)
  libbenchmark-dev        # micro-benchmarks
  hdf5-tools              # h5dump / h5ls for looking at results
  valgrind                # fleetwatt bench --instructions: the instruction-count gate (callgrind)
  python3-matplotlib python3-numpy python3-h5py  # fleetwatt report's figures (Debian's /usr/bin/python3)
  python3-pil             # fleetwatt report's screenshot checks (test, docs picture)
  chromium                # renders fleetwatt report's page headless in its test
  pybind11-dev python3-dev python3-pandas python3-pytest  # the Python package (python/) and its tests
  libopenmpi-dev openmpi-bin  # fleetwatt sweep over MPI ranks (optional to the build: without, sweeps run serially)
  clang libclang-rt-14-dev   # CI's sanitizer build and the fuzz targets (ASan, UBSan, libFuzzer: fuzz/)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "fleetwatt: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "fleetwatt: cannot install ${missing[*]}: run this script as root or install sudo" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -qq || ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "fleetwatt: apt-get could not install: ${missing[*]} (is this Debian 12 or newer, with a package mirror?)" >&2
  exit 1
fi
