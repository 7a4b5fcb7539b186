//! How a setting is declared: its key, the values it accepts, its default and what it means.
//! The tables of methods (`methods.rs`) and oracles (`oracles.rs`) are made of these, and
//! [`Declared`] reads a block's settings through its table.

use crate::ir::{SettingValue, Settings};

/// The values a setting accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Int {
        min: u64,
    },
    /// A finite number strictly greater than zero.
    Positive,
    /// One of these names (`T::NAMES` of a [`crate::choices::Choice`]).
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

/// A block's settings read through their table: the file's value, else the declared default.
/// The one reader of every settings table (methods and oracles), so each default is written
/// once, in its declaration. Reading a key the table does not declare, or with the wrong
/// accessor, is a programming error and panics (the tests read every declared key).
#[derive(Clone, Copy, Debug)]
pub struct Declared<'a> {
    /// What the table belongs to (`method neural-bo`, `oracle fdm`), for panics.
    pub owner: &'static str,
    groups: &'static [&'static [Spec]],
    settings: &'a Settings,
}

impl<'a> Declared<'a> {
    pub fn new(
        owner: &'static str,
        groups: &'static [&'static [Spec]],
        settings: &'a Settings,
    ) -> Declared<'a> {
        Declared {
            owner,
            groups,
            settings,
        }
    }

    /// Every declared setting, in the order of the table.
    pub fn specs(&self) -> impl Iterator<Item = &'static Spec> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }

    /// The settings as the file wrote them.
    pub fn written(&self) -> &'a Settings {
        self.settings
    }

    fn spec(&self, key: &str) -> &'static Spec {
        self.specs()
            .find(|s| s.key == key)
            .unwrap_or_else(|| panic!("{} declares no setting `{key}`", self.owner))
    }

    pub fn int(&self, key: &str) -> u64 {
        match (self.settings.int(key), self.spec(key).default) {
            (Some(v), _) | (None, Default::Int(v)) => v,
            (None, other) => panic!("`{key}` is declared with the default {other:?}"),
        }
    }

    /// An integer setting as a count.
    pub fn count(&self, key: &str) -> usize {
        usize::try_from(self.int(key)).unwrap_or(usize::MAX)
    }

    pub fn number(&self, key: &str) -> f64 {
        match (self.settings.number(key), self.spec(key).default) {
            (Some(v), _) | (None, Default::Number(v)) => v,
            (None, other) => panic!("`{key}` is declared with the default {other:?}"),
        }
    }

    /// A setting whose default is computed by its reader: the file's value, if any.
    pub fn computed(&self, key: &str) -> Option<&'a SettingValue> {
        assert!(
            matches!(self.spec(key).default, Default::Computed(_)),
            "`{key}` has a fixed default"
        );
        self.settings.get(key)
    }

    /// A number whose default is computed (None unless the file sets it).
    pub fn computed_number(&self, key: &str) -> Option<f64> {
        self.computed(key)?;
        self.settings.number(key)
    }

    /// A choice's name: the file's or the default, always one of the declared options.
    pub fn name(&self, key: &str) -> &'a str {
        match (self.settings.name(key), self.spec(key).default) {
            (Some(v), _) => v,
            (None, Default::Name(v)) => v,
            (None, other) => panic!("`{key}` is declared with the default {other:?}"),
        }
    }

    /// A choice as its enum.
    ///
    /// # Panics
    /// When the table offers a name `T` does not have (a programming error: tables offer
    /// `T::NAMES`).
    pub fn choice<T: crate::choices::Choice>(&self, key: &str) -> T {
        let name = self.name(key);
        T::from_name(name).unwrap_or_else(|| {
            panic!(
                "`{key}` of {}: the table offers `{name}`, which {} does not have",
                self.owner,
                std::any::type_name::<T>()
            )
        })
    }
}
