fn main() -> std::process::ExitCode {
    pinnbo_cli::run(std::env::args_os())
}
