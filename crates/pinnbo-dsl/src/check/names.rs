//! Names a run's folders and files take from a problem: its `problem` statement's, or its
//! file's made safe.

/// A name that is one plain folder or file name: it cannot climb out of an output folder
/// (`..`, `/`), hide (`.`), or surprise a shell.
pub fn is_safe_name(name: &str) -> bool {
    name.len() <= 100
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.chars().all(plain)
}

/// A character a safe name may hold.
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// The file's base name without `.pde`, made safe ([`is_safe_name`]): other characters
/// become `_`, and a name that is still unsafe becomes `problem`.
pub(super) fn default_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.strip_suffix(".pde").unwrap_or(base);
    let safe: String = stem
        .chars()
        .take(100)
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    if is_safe_name(&safe) {
        safe
    } else {
        "problem".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name taken from the file's name is always one plain folder name.
    #[test]
    fn default_names_are_safe_folder_names() {
        assert_eq!(default_name("problems/beam.pde"), "beam");
        assert_eq!(default_name("../x/my beam (v2).pde"), "my_beam__v2_");
        assert_eq!(default_name("dir/..pde"), "problem");
        assert_eq!(default_name(".hidden.pde"), "problem");
        assert!(!is_safe_name("../../tmp/x"));
        assert!(!is_safe_name("/etc"));
        assert!(is_safe_name("styblinski-tang-10"));
    }
}
