#!/usr/bin/env bash
# Installs what is missing, then configures and builds RobustKernelTest. Safe to run again.
#
#   Debian packages: cmake, g++, GoogleTest/GoogleMock, Google Benchmark, rapidcheck, nlohmann/json,
#   ccache, and chromium (headless, for the report page test: tests/report_check/).
#   LibTorch: the PyPI torch wheel (it carries LibTorch and its CMake config) in a Python
#   environment outside the checkout, keyed by the torch version, so every clone on the machine
#   (CI's fresh clone too) reuses it: ${RKT_VENV:-~/.cache/rkt/venv-torch-<version>}.
#   CUDA: nvcc from /usr/local/cuda when present; its major version must match torch's CUDA.
#   Ray and pytest in the same environment, for the Ray front end's test (python/rkt_ray).
#
# Environment: RKT_TORCH_VERSION and RKT_RAY_VERSION (defaults below), RKT_VENV, RKT_BUILD_DIR
# (default build), TORCH_CUDA_ARCH_LIST (default 9.0: there may be no GPU to probe), CI (warnings
# become errors).
set -euo pipefail

RKT_TORCH_VERSION="${RKT_TORCH_VERSION:-2.11.0}"  # Matches the H200 machine's torch (docs/gpu_runs.md).
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
venv="${RKT_VENV:-$HOME/.cache/rkt/venv-torch-$RKT_TORCH_VERSION}"

say() { echo "bootstrap: $*"; }

# ---- Debian packages -------------------------------------------------------------------------
packages=(cmake g++ make libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  nlohmann-json3-dev ccache chromium)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then missing+=(python3-venv); fi
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

# ---- LibTorch from the torch wheel -----------------------------------------------------------
if ! "$venv/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$RKT_TORCH_VERSION')" \
    >/dev/null 2>&1; then
  say "installing torch==$RKT_TORCH_VERSION into $venv (several GB, once per machine)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --progress-bar off "torch==$RKT_TORCH_VERSION"
fi
torch_prefix="$("$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"

# ---- Ray and pytest, for the Ray front end's test (python/rkt_ray, ctest rkt_ray_cluster) ----
RKT_RAY_VERSION="${RKT_RAY_VERSION:-2.60.0}"
if ! "$venv/bin/python" -c "import ray, pytest, sys; sys.exit(ray.__version__ != '$RKT_RAY_VERSION')" \
    >/dev/null 2>&1; then
  say "installing ray==$RKT_RAY_VERSION and pytest into $venv"
  "$venv/bin/pip" install --quiet --progress-bar off "ray==$RKT_RAY_VERSION" pytest
fi

# ---- Configure and build ---------------------------------------------------------------------
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"
# ccache hashes paths relative to the checkout, so every clone on this machine shares its cache.
export CCACHE_BASEDIR="$repo_root"
cmake_args=(-S "$repo_root" -B "$build_dir" -DCMAKE_PREFIX_PATH="$torch_prefix")
[ -n "${CI:-}" ] && cmake_args+=(-DRKT_WARNINGS_AS_ERRORS=ON)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  say "configuring in $build_dir"
fi
cmake "${cmake_args[@]}" >"$build_dir.configure.log" 2>&1 || {
  cat "$build_dir.configure.log"
  exit 1
}
# A cold build takes an hour on a loaded 2-core machine: a line every this often says it runs.
build_heartbeat_seconds=60  # [s]
say "building (logs: $build_dir.build.log; a line every $build_heartbeat_seconds s while it runs)"
"$repo_root/tools/with_heartbeat.sh" bootstrap building "$build_heartbeat_seconds" \
  "$build_dir.build.log" cmake --build "$build_dir" -j "$(nproc)" || {
  tail -n 80 "$build_dir.build.log"
  exit 1
}
say "built $build_dir/bin/rkt"
