# Sourced before running a CUDA build of pinnbo: puts CUDA 13 libraries and the driver's
# libcuda.so.1 on LD_LIBRARY_PATH.
#
#   source dist/cuda/cuda-env.sh && dist/cuda/pinnbo --version
#
# The libraries are looked for, in this order, in $PINNBO_CUDA_LIBS (a colon list), the wheels
# build-cuda.sh installed (dist/cuda/sdk-libs), the nvidia wheels of any Python environment
# under /opt, and the usual toolkit folders. The driver's libcuda.so.1 comes from the system;
# only where none is found is the stub added, and pinnbo then says that no GPU answers.
_pinnbo_cuda_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_pinnbo_cuda_path=${PINNBO_CUDA_LIBS:-}
_pinnbo_cuda_add() { [ -d "$1" ] && _pinnbo_cuda_path=${_pinnbo_cuda_path:+$_pinnbo_cuda_path:}$1; return 0; }
if [ -f "$_pinnbo_cuda_dir/sdk-libs" ]; then _pinnbo_cuda_add "$(cat "$_pinnbo_cuda_dir/sdk-libs")"; fi
for _d in /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib /opt/*/lib/python3*/site-packages/nvidia/cu13/lib \
    /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64; do
    _pinnbo_cuda_add "$_d"
done
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' && [ ! -e /usr/local/nvidia/lib64/libcuda.so.1 ]; then
    _pinnbo_cuda_add "$_pinnbo_cuda_dir/stub"
else
    _pinnbo_cuda_add /usr/local/nvidia/lib64
fi
export LD_LIBRARY_PATH=$_pinnbo_cuda_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset _pinnbo_cuda_dir _pinnbo_cuda_path _d
unset -f _pinnbo_cuda_add
