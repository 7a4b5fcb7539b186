//! How a setting is declared: its key, the values it accepts, its default and what it means.
//! The tables of methods (`methods.rs`) and oracles (`check/settings.rs`) are made of these.

/// The values a setting accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Int {
        min: u64,
    },
    /// A finite number strictly greater than zero.
    Positive,
    Choice(&'static [&'static str]),
    Duration,
    Dims,
    List,
    Str,
}

impl Kind {
    pub fn describe(self) -> String {
        match self {
            Kind::Int { min } => format!("an integer of at least {min}"),
            Kind::Positive => "a positive number".into(),
            Kind::Choice(options) => format!("one of {}", options.join(", ")),
            Kind::Duration => "a positive duration such as `30 s` or `10 min`".into(),
            Kind::Dims => "grid dimensions of at least 3 each, such as `129 x 129`".into(),
            Kind::List => "a list of numbers such as `[0.1, 0.5, 1]`".into(),
            Kind::Str => "a string in double quotes".into(),
        }
    }
}

/// What a setting is when the file does not set it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    Int(u64),
    Number(f64),
    Name(&'static str),
    /// Worked out from the problem or the run; the text says how.
    Computed(&'static str),
}

impl Default {
    pub fn describe(self) -> String {
        match self {
            Default::Int(v) => v.to_string(),
            Default::Number(v) => v.to_string(),
            Default::Name(n) => format!("`{n}`"),
            Default::Computed(how) => how.to_string(),
        }
    }
}

/// One setting's declaration.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub key: &'static str,
    pub kind: Kind,
    pub default: Default,
    pub doc: &'static str,
}

impl Spec {
    pub const fn new(key: &'static str, kind: Kind, default: Default, doc: &'static str) -> Spec {
        Spec {
            key,
            kind,
            default,
            doc,
        }
    }
}
