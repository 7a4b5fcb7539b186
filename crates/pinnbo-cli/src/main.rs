/// Jets and sparse factorizations allocate many short-lived buffers above glibc's mmap
/// threshold; mimalloc reuses them (a beam residual step 87 -> 57 ms, see docs/decisions.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pinnbo_cli::run(std::env::args_os())
}
