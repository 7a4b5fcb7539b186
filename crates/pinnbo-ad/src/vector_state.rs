//! The x86 vector registers' upper halves, cleared after faer's products.
//!
//! faer's matrix products on AVX machines run hand-written kernels (`private-gemm-x86`) that
//! return with the upper halves of the vector registers in use and no `vzeroupper`. Until
//! something clears them, glibc's legacy-SSE maths pays for a false dependency on those
//! halves: `tanh` took 390 ns a call instead of 12 ns, `exp` 126 ns instead of 5, and
//! Neural-Greedy spent 95% of its training in `tanh` (docs/decisions.md "Vector registers
//! after faer's products").

/// Clears the upper halves of the vector registers (`vzeroupper`) where the CPU has AVX;
/// nothing elsewhere. A few cycles: called after every faer product that may run a kernel.
#[inline]
pub(crate) fn clear_upper() {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx) = pulp::core_arch::x86::Avx::try_new() {
        avx._mm256_zeroupper();
    }
}
