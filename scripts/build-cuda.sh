#!/usr/bin/env bash
# Builds pinnbo with candle's CUDA back end (`--features cuda`) on a machine that has neither a
# GPU nor a CUDA toolkit: the compiler and libraries come as CUDA 13.0 wheels from PyPI, and the
# driver library `libcuda.so.1`, which only a GPU machine's driver provides, is replaced at link
# time by a stub generated here (every driver entry point returning "no device").
#
#   bash scripts/build-cuda.sh            # -> dist/cuda/: pinnbo, iteration_cost, cuda-env.sh
#
# Settings (environment):
#   PINNBO_CUDA_SDK    where the wheels are installed (default target/cuda-sdk)
#   CUDA_COMPUTE_CAP   the GPU's compute capability, no dot (default 90: H100/H200); needed
#                      because no GPU is present to ask at build time
#   CUDAFORGE_THREADS  parallel nvcc jobs (default: the number of cores)
#
# Why CUDA 13.0 and not the newest wheels: candle loads its kernels as PTX that the driver
# compiles when the program starts; nvcc 13.0 writes PTX that a 580 driver (CUDA 13.0) reads,
# while a newer nvcc's PTX is refused by it. docs/gpu.md says what the binary needs at run time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
sdk=${PINNBO_CUDA_SDK:-$root/target/cuda-sdk}
mkdir -p "$sdk"
sdk=$(cd "$sdk" && pwd)

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)"; }

step "CUDA 13.0 wheels into $sdk/venv"
if [ ! -x "$sdk/venv/bin/python" ]; then
    python3 -m venv "$sdk/venv"
fi
"$sdk/venv/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cublas==13.0.2.14 \
    nvidia-curand==10.4.0.35 nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-crt==13.0.88 \
    nvidia-nvvm==13.0.88 nvidia-cuda-cccl==13.0.85
nv=$("$sdk/venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')
[ -x "$nv/bin/nvcc" ] || { echo "error: no nvcc in $nv/bin after the install" >&2; exit 1; }

step "a CUDA_HOME laid out as a toolkit: $sdk/home"
home=$sdk/home
mkdir -p "$home/lib/stubs"
for part in bin include nvvm; do ln -sfn "$nv/$part" "$home/$part"; done
# The linker wants the unversioned names the wheels do not ship.
for lib in cublas cublasLt cudart nvrtc; do ln -sfn "$nv/lib/lib$lib.so.13" "$home/lib/lib$lib.so"; done
ln -sfn "$nv/lib/libcurand.so.10" "$home/lib/libcurand.so"

step "a link-time stub of the driver library"
cargo fetch --locked --quiet
cudarc_version=$(awk '/^name = "cudarc"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
cudarc_src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"cudarc-$cudarc_version" | head -n 1)
# Every driver function cudarc declares, each answering CUDA_ERROR_NO_DEVICE (100). The real
# libcuda.so.1 of the GPU machine's driver takes its place at run time.
grep -oE 'pub unsafe fn cu[A-Za-z0-9_]+' "$cudarc_src/src/driver/sys/mod.rs" | awk '{ print $4 }' |
    sort -u | awk '{ printf "int %s(void) { return 100; }\n", $1 }' >"$home/lib/stubs/libcuda_stub.c"
gcc -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$home/lib/stubs/libcuda.so.1" "$home/lib/stubs/libcuda_stub.c"
ln -sfn libcuda.so.1 "$home/lib/stubs/libcuda.so"

step "cargo build --release --features cuda (the first build compiles candle's kernels: tens of minutes)"
export CUDA_HOME=$home NVCC=$home/bin/nvcc PATH=$home/bin:$PATH
export CUDARC_CUDA_VERSION=13000 CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-90}
export CUDAFORGE_THREADS=${CUDAFORGE_THREADS:-$(nproc)}
# A target folder of its own: the CPU build in target/ is left as it is.
export CARGO_TARGET_DIR=$root/target/cuda
cargo build --release --locked --features cuda
# The per-step timing program scripts/gpu-measure.sh runs.
cargo build --release --locked --features cuda -p pinnbo-core --example iteration_cost

step "dist/cuda: the binary, the stub and a launcher"
mkdir -p dist/cuda/stub
cp "$CARGO_TARGET_DIR/release/pinnbo" "$CARGO_TARGET_DIR/release/examples/iteration_cost" dist/cuda/
# Without symbols the two are about 60 MB each (mostly candle's PTX, which is text): 9 MB
# each compressed, small enough to carry to a GPU machine.
strip dist/cuda/pinnbo dist/cuda/iteration_cost
cp "$home/lib/stubs/libcuda.so.1" dist/cuda/stub/
cp scripts/cuda-env.sh dist/cuda/
printf '%s\n' "$nv/lib" >dist/cuda/sdk-libs
tar -C dist -cJf dist/cuda.tar.xz cuda
echo "built: dist/cuda/pinnbo, packed with the rest in dist/cuda.tar.xz"
echo "run it as: source dist/cuda/cuda-env.sh; dist/cuda/pinnbo --version"
