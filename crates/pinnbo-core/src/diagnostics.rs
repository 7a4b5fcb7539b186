//! What a step reports about itself, journaled with its record: the values other modules read
//! (timings for `pinnbo bench`, the prediction, the trust region) as typed fields, and
//! whatever else a method wants to keep in an open map.
//!
//! In the journal it is one JSON object with sorted keys (`null` when empty), exactly as the
//! open map alone would be written: typed fields are an in-memory convenience, not a format.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diagnostics {
    /// The surrogate's prediction of the objective at the proposal, in the file's units.
    pub predicted: Option<f64>,
    /// Seconds spent fitting the surrogate.
    pub train_seconds: Option<f64>,
    /// Seconds spent searching the acquisition.
    pub acquisition_seconds: Option<f64>,
    /// The training loss at the end of the fit.
    pub train_loss: Option<f64>,
    /// Training epochs run.
    pub epochs: Option<u64>,
    /// The trust region's side, when the search had one.
    pub region_side: Option<f64>,
    /// An expected-improvement step's largest (augmented) expected improvement as a share of
    /// the observations' standard deviation: what the run's convergence report reads.
    pub expected_improvement_relative: Option<f64>,
    /// Method-specific values, by name.
    pub extra: Map<String, Value>,
}

/// The typed fields' names, as in the journal.
const TYPED: [&str; 7] = [
    "predicted",
    "train_seconds",
    "acquisition_seconds",
    "train_loss",
    "epochs",
    "region_side",
    "expected_improvement_relative",
];

/// The diagnostic of the pde's fitted constants (`param`): each one's estimate by name, as
/// the run's summary reports them.
pub const PARAMETERS: &str = "parameters";

/// Whether a physics method's step conditioned its model on the pde, and when it did not,
/// what dropped it: the run's summary counts them.
pub const PDE_KEPT: &str = "pde_kept";
pub const PDE_DROPPED_BY: &str = "pde_dropped_by";

/// Below this share of the observations' standard deviation, no point's expected improvement
/// is worth reporting: the run counts as converged (docs/algorithms.md §6).
pub const CONVERGED: f64 = 1e-3;

impl Diagnostics {
    /// A method-specific value.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Diagnostics {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// [`Diagnostics::with`] when there is a value; nothing (not a null) when there is none.
    pub fn with_some(self, key: &str, value: Option<impl Into<Value>>) -> Diagnostics {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// These diagnostics with `other`'s open map added (its values win).
    pub fn merge(mut self, other: Diagnostics) -> Diagnostics {
        self.extra.extend(other.extra);
        self
    }

    /// A method-specific value, by name.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.extra.get(key)
    }

    /// A physics method's verdict on the pde at this step ([`PDE_KEPT`]); None where the
    /// step gave none.
    pub fn pde_kept(&self) -> Option<bool> {
        self.get(PDE_KEPT)?.as_bool()
    }

    /// What dropped the pde at this step ([`PDE_DROPPED_BY`]); None where it was kept, or in
    /// journals written before the reason was recorded.
    pub fn pde_dropped_by(&self) -> Option<&str> {
        self.get(PDE_DROPPED_BY)?.as_str()
    }

    /// Every value, typed fields and extras, as the journal holds them.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut map = self.extra.clone();
        let typed = [
            self.predicted.map(Value::from),
            self.train_seconds.map(Value::from),
            self.acquisition_seconds.map(Value::from),
            self.train_loss.map(Value::from),
            self.epochs.map(Value::from),
            self.region_side.map(Value::from),
            self.expected_improvement_relative.map(Value::from),
        ];
        for (key, value) in TYPED.iter().zip(typed) {
            if let Some(v) = value {
                map.insert(key.to_string(), v);
            }
        }
        map
    }

    /// Splits a journal's object into typed fields and extras; a value of another type than
    /// its field's (a non-finite number is written as null) stays in the extras.
    pub fn from_map(mut map: Map<String, Value>) -> Diagnostics {
        let mut number = |key: &str| {
            let v = map.get(key)?.as_f64()?;
            map.remove(key);
            Some(v)
        };
        let predicted = number("predicted");
        let train_seconds = number("train_seconds");
        let acquisition_seconds = number("acquisition_seconds");
        let train_loss = number("train_loss");
        let region_side = number("region_side");
        let expected_improvement_relative = number("expected_improvement_relative");
        let epochs = map.get("epochs").and_then(Value::as_u64);
        if epochs.is_some() {
            map.remove("epochs");
        }
        Diagnostics {
            predicted,
            train_seconds,
            acquisition_seconds,
            train_loss,
            epochs,
            region_side,
            expected_improvement_relative,
            extra: map,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.to_map().is_empty()
    }
}

impl Serialize for Diagnostics {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let map = self.to_map();
        if map.is_empty() {
            serializer.serialize_none()
        } else {
            map.serialize(serializer)
        }
    }
}

/// As the journal writes it.
impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

impl<'de> Deserialize<'de> for Diagnostics {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Diagnostics, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Null => Ok(Diagnostics::default()),
            Value::Object(map) => Ok(Diagnostics::from_map(map)),
            other => Err(serde::de::Error::custom(format!(
                "diagnostics must be an object or null, found {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The journal's text is the open map's: typed fields and extras, keys sorted, and
    /// reading it back gives the same diagnostics.
    #[test]
    fn the_journal_form_is_one_sorted_object_and_reads_back() {
        let d = Diagnostics {
            predicted: Some(1.5),
            epochs: Some(30),
            ..Diagnostics::default()
        }
        .with("nu", 2.0)
        .with("beta", Value::Null);
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(
            text,
            r#"{"beta":null,"epochs":30,"nu":2.0,"predicted":1.5}"#
        );
        let back: Diagnostics = serde_json::from_str(&text).unwrap();
        assert_eq!(back, d);
        assert_eq!(
            serde_json::to_string(&Diagnostics::default()).unwrap(),
            "null"
        );
        let null: Diagnostics = serde_json::from_value(Value::Null).unwrap();
        assert!(null.is_empty());
    }

    /// A typed key holding another type (a NaN prediction is journaled as null) stays an
    /// extra, so the record is written back exactly as read.
    #[test]
    fn a_typed_key_of_another_type_round_trips_as_an_extra() {
        let read: Diagnostics = serde_json::from_value(json!({"predicted": null})).unwrap();
        assert_eq!(read.predicted, None);
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            json!({"predicted": null})
        );
        assert!(serde_json::from_value::<Diagnostics>(json!([1])).is_err());
    }
}
