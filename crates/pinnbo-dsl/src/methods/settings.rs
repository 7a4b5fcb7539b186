//! A file's settings of one method read through its table, with the declared defaults.

use super::{method, MethodInfo, OnlyWhen};
use crate::ir::{SettingValue, Settings};
use crate::spec::{Declared, Kind};

/// A method's settings as its constructor reads them: the file's value, else the declared
/// default ([`Declared`], which it dereferences to), with the method they belong to.
#[derive(Clone, Copy, Debug)]
pub struct MethodSettings<'a> {
    pub info: &'static MethodInfo,
    declared: Declared<'a>,
}

impl<'a> std::ops::Deref for MethodSettings<'a> {
    type Target = Declared<'a>;

    fn deref(&self) -> &Declared<'a> {
        &self.declared
    }
}

impl<'a> MethodSettings<'a> {
    /// `settings` read through `info`'s table. A checked file's settings always fit; settings
    /// built in code are checked here, and the first that does not fit is reported.
    pub fn new(info: &'static MethodInfo, settings: &'a Settings) -> Result<Self, String> {
        for (key, value) in &settings.0 {
            let Some(spec) = info.setting(key) else {
                return Err(format!("method `{}` has no setting `{key}`", info.name));
            };
            if !fits(spec.kind, value) {
                return Err(format!(
                    "`{key}` of method `{}` expects {}, found {value:?}",
                    info.name,
                    spec.kind.describe()
                ));
            }
        }
        Ok(MethodSettings {
            info,
            declared: info.read(settings),
        })
    }

    /// Every setting of the method `name` at its default.
    ///
    /// # Panics
    /// When no method is called `name` (a programming error: the names are this table's).
    pub fn defaults(name: &str) -> MethodSettings<'static> {
        static NONE: Settings = Settings(std::collections::BTreeMap::new());
        let info = method(name).unwrap_or_else(|| panic!("no method `{name}`"));
        MethodSettings {
            info,
            declared: info.read(&NONE),
        }
    }

    /// The settings the file set that have no effect under its other settings, each with the
    /// condition it misses.
    pub fn without_effect(&self) -> impl Iterator<Item = &'static OnlyWhen> + '_ {
        let written = self.written();
        self.info
            .only_when
            .iter()
            .filter(move |c| written.get(c.setting).is_some())
            .filter(move |c| !c.values.contains(&self.name(c.other)))
    }
}

/// Whether a value built in code has the type and range `kind` accepts.
fn fits(kind: Kind, value: &SettingValue) -> bool {
    match (kind, value) {
        (Kind::Int { min }, SettingValue::Int(v)) => *v >= min,
        (Kind::Positive, SettingValue::Number(v)) => *v > 0.0 && v.is_finite(),
        (Kind::Positive, SettingValue::Int(v)) => *v > 0,
        (Kind::Choice(options), SettingValue::Name(n)) => options.contains(&n.as_str()),
        (Kind::Duration, SettingValue::Duration(_))
        | (Kind::Dims, SettingValue::Dims(_))
        | (Kind::List, SettingValue::List(_))
        | (Kind::Str, SettingValue::Str(_)) => true,
        _ => false,
    }
}
