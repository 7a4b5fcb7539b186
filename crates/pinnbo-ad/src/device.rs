//! Where networks are trained: the CPU, or a CUDA GPU in a build with the `cuda` feature
//! (candle's CUDA back end; docs/gpu.md). The choice is a method setting; this module turns
//! it into a candle device or a message saying why it cannot be had.

use candle_core::Device;
pub use pinnbo_dsl::choices::Hardware;

/// Whether this build has candle's CUDA back end.
pub const CUDA_COMPILED: bool = cfg!(feature = "cuda");

/// Why the device asked for cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error(
        "this pinnbo was built without CUDA, so `device cuda` cannot run; build one with \
         `bash scripts/build-cuda.sh` (docs/gpu.md), or train on the CPU (`device cpu`)"
    )]
    NotCompiled,
    #[error(
        "no CUDA GPU answers ({0}); `nvidia-smi` should list one, and the driver's \
         libcuda.so.1 and CUDA 13 libraries must be found (`source dist/cuda/cuda-env.sh`, \
         docs/gpu.md); or train on the CPU (`device cpu`)"
    )]
    NoGpu(String),
}

/// The candle device for `hardware`: for `Cuda`, GPU 0 of those `CUDA_VISIBLE_DEVICES` shows.
pub fn open(hardware: Hardware) -> Result<Device, DeviceError> {
    match hardware {
        Hardware::Cpu => Ok(Device::Cpu),
        Hardware::Cuda if !CUDA_COMPILED => Err(DeviceError::NotCompiled),
        Hardware::Cuda => Device::new_cuda(0).map_err(|e| {
            let message = crate::without_backtrace(e).to_string();
            DeviceError::NoGpu(message.lines().next().unwrap_or_default().to_string())
        }),
    }
}

/// How this build stands with CUDA, in a line for `--version` and `pinnbo methods`.
pub fn cuda_line() -> &'static str {
    if CUDA_COMPILED {
        "CUDA: compiled in (`device cuda` trains the networks on GPU 0)"
    } else {
        "CUDA: not compiled in (build with `bash scripts/build-cuda.sh` for `device cuda`)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_is_always_there() {
        assert!(matches!(open(Hardware::Cpu), Ok(Device::Cpu)));
    }

    /// Without the feature the refusal says how to get a build that has it; with it and no
    /// GPU (CI, the build machine) it says that none answers.
    #[test]
    fn cuda_is_refused_with_the_reason_where_it_cannot_run() {
        let opened = open(Hardware::Cuda);
        let compiled = cfg!(feature = "cuda");
        match opened {
            Err(DeviceError::NotCompiled) => assert!(!compiled),
            Err(e @ DeviceError::NoGpu(_)) => {
                assert!(compiled);
                assert!(e.to_string().starts_with("no CUDA GPU answers ("), "{e}");
            }
            Ok(device) => assert!(compiled && device.is_cuda()),
        }
    }
}
