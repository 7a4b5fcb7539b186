//! Built-in functions and constants of the expression language, with their f64 semantics.

/// A built-in function. Domain errors (sqrt of a negative, log of a non-positive number,
/// asin outside [-1, 1]) give NaN; callers report non-finite results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Builtin {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Log,
    Sqrt,
    Abs,
    Min,
    Max,
    Pow,
}

impl Builtin {
    pub const ALL: [Builtin; 17] = [
        Builtin::Sin,
        Builtin::Cos,
        Builtin::Tan,
        Builtin::Asin,
        Builtin::Acos,
        Builtin::Atan,
        Builtin::Atan2,
        Builtin::Sinh,
        Builtin::Cosh,
        Builtin::Tanh,
        Builtin::Exp,
        Builtin::Log,
        Builtin::Sqrt,
        Builtin::Abs,
        Builtin::Min,
        Builtin::Max,
        Builtin::Pow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Builtin::Sin => "sin",
            Builtin::Cos => "cos",
            Builtin::Tan => "tan",
            Builtin::Asin => "asin",
            Builtin::Acos => "acos",
            Builtin::Atan => "atan",
            Builtin::Atan2 => "atan2",
            Builtin::Sinh => "sinh",
            Builtin::Cosh => "cosh",
            Builtin::Tanh => "tanh",
            Builtin::Exp => "exp",
            Builtin::Log => "log",
            Builtin::Sqrt => "sqrt",
            Builtin::Abs => "abs",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Pow => "pow",
        }
    }

    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }

    pub fn arity(self) -> usize {
        match self {
            Builtin::Atan2 | Builtin::Min | Builtin::Max | Builtin::Pow => 2,
            _ => 1,
        }
    }

    /// Applies a one-argument built-in. Two-argument ones go through [`Builtin::apply2`].
    pub fn apply1(self, x: f64) -> f64 {
        match self {
            Builtin::Sin => x.sin(),
            Builtin::Cos => x.cos(),
            Builtin::Tan => x.tan(),
            Builtin::Asin => x.asin(),
            Builtin::Acos => x.acos(),
            Builtin::Atan => x.atan(),
            Builtin::Sinh => x.sinh(),
            Builtin::Cosh => x.cosh(),
            Builtin::Tanh => x.tanh(),
            Builtin::Exp => x.exp(),
            // ln(0) = -inf in IEEE arithmetic; the language treats it as a domain error.
            Builtin::Log => {
                if x > 0.0 {
                    x.ln()
                } else {
                    f64::NAN
                }
            }
            Builtin::Sqrt => x.sqrt(),
            Builtin::Abs => x.abs(),
            Builtin::Atan2 | Builtin::Min | Builtin::Max | Builtin::Pow => f64::NAN,
        }
    }

    /// Applies a one-argument built-in to every element. The dispatch happens once, outside
    /// the loop, so each arm is a tight loop the compiler can unroll.
    pub fn apply1_slice(self, xs: &mut [f64]) {
        fn each(xs: &mut [f64], f: impl Fn(f64) -> f64) {
            xs.iter_mut().for_each(|x| *x = f(*x));
        }
        match self {
            Builtin::Sin => each(xs, f64::sin),
            Builtin::Cos => each(xs, f64::cos),
            Builtin::Tan => each(xs, f64::tan),
            Builtin::Asin => each(xs, f64::asin),
            Builtin::Acos => each(xs, f64::acos),
            Builtin::Atan => each(xs, f64::atan),
            Builtin::Sinh => each(xs, f64::sinh),
            Builtin::Cosh => each(xs, f64::cosh),
            Builtin::Tanh => each(xs, f64::tanh),
            Builtin::Exp => each(xs, f64::exp),
            Builtin::Sqrt => each(xs, f64::sqrt),
            Builtin::Abs => each(xs, f64::abs),
            other => each(xs, |x| other.apply1(x)),
        }
    }

    pub fn apply2(self, a: f64, b: f64) -> f64 {
        match self {
            Builtin::Atan2 => a.atan2(b),
            // NaN-propagating, unlike f64::min/max which ignore a NaN operand.
            Builtin::Min => {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.min(b)
                }
            }
            Builtin::Max => {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            }
            Builtin::Pow => power(a, b),
            _ => f64::NAN,
        }
    }
}

/// `a^b`, exact for small integer exponents (so `(-2)^3 = -8`).
pub fn power(a: f64, b: f64) -> f64 {
    if b.fract() == 0.0 && b.abs() <= 64.0 {
        a.powi(b as i32)
    } else {
        a.powf(b)
    }
}

/// Named constants every file can use.
pub const CONSTANTS: [(&str, f64); 2] = [("pi", std::f64::consts::PI), ("e", std::f64::consts::E)];
