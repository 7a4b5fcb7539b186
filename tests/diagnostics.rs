//! Data-driven snapshot tests: every file in `tests/diagnostics/` is malformed, and the
//! rendered diagnostics (what `pinnbo check` prints) are pinned by insta snapshots.

use pinnbo_dsl::{compile, Source, Style};

#[test]
fn every_malformed_input_renders_its_diagnostics() {
    insta::glob!("diagnostics/*.pde", |path| {
        let text = std::fs::read_to_string(path).expect("readable test input");
        let name = format!(
            "diagnostics/{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
        );
        let failed = compile(&Source::new(name, text)).expect_err("every input here is invalid");
        assert!(failed.error_count() > 0);
        insta::assert_snapshot!(failed.render(Style::Plain));
    });
}
