//! Data-driven snapshot tests: every file in `tests/diagnostics/` is malformed, and the
//! rendered diagnostics (what `pinnbo check` prints) are pinned by insta snapshots.

use pinnbo_dsl::{compile, Failed, LoadError, Source, Style};

#[test]
fn every_malformed_input_renders_its_diagnostics() {
    insta::glob!("diagnostics/*.pde", |path| {
        let name = format!(
            "diagnostics/{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
        );
        // Snapshots name the file relative to tests/, wherever the checkout is.
        let failed = match pinnbo_dsl::read(path) {
            Ok(source) => {
                compile(&Source::new(name, source.text())).expect_err("every input here is invalid")
            }
            Err(LoadError::Invalid(failed)) => Failed {
                file: Source::new(name, failed.file.text()),
                diagnostics: failed.diagnostics,
            },
            Err(e) => panic!("{e}"),
        };
        assert!(failed.error_count() > 0);
        insta::assert_snapshot!(failed.render(Style::Plain));
    });
}
