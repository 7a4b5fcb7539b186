//! The values of every choice setting, each declared once as an enum with its names: the
//! settings tables (`methods.rs`, `oracles.rs`) offer `T::NAMES`, and a constructor
//! reads the file's choice as a `T` ([`crate::spec::Declared::choice`]), so a name is
//! written in one place only.

/// An enum whose values a setting offers by name.
pub trait Choice: Copy + PartialEq + 'static {
    /// The names, in the order of [`Choice::ALL`].
    const NAMES: &'static [&'static str];
    const ALL: &'static [Self];

    /// The value called `name`.
    fn from_name(name: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Self::ALL[i])
    }

    /// The name of this value, as a file writes it.
    fn name(self) -> &'static str {
        let i = Self::ALL.iter().position(|v| *v == self);
        Self::NAMES[i.expect("every value is in ALL")]
    }
}

/// Declares a choice enum: `choice! { /// doc \n pub enum E { /// doc \n A = "a", .. } }`.
macro_rules! choice {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl Choice for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            const ALL: &'static [Self] = &[$($name::$variant),+];
        }
    };
}

choice! {
    /// A hidden layer's activation.
    pub enum Activation {
        Tanh = "tanh",
        Sin = "sin",
        Softplus = "softplus",
        /// Zero second derivative: unusable with a pde of order two or more.
        Relu = "relu",
    }
}

choice! {
    /// How the best candidates of an acquisition are taken.
    pub enum Refinement {
        /// The best candidate as it is (the papers' candidate set).
        Random = "random",
        /// The best candidates improved by gradient steps.
        Refine = "refine",
    }
}

choice! {
    /// Where the acquisition looks.
    pub enum Region {
        /// The whole box.
        Global = "global",
        /// A trust region around the incumbent.
        Trust = "trust",
        /// `Trust` above 20 dimensions, `Global` up to 20.
        Auto = "auto",
    }
}

choice! {
    /// A network's training precision.
    pub enum Precision {
        F64 = "f64",
        F32 = "f32",
    }
}

choice! {
    /// Where a network is trained (docs/gpu.md).
    pub enum Hardware {
        Cpu = "cpu",
        /// GPU 0 of those CUDA shows (`CUDA_VISIBLE_DEVICES` chooses); needs a build with the
        /// `cuda` feature.
        Cuda = "cuda",
    }
}

choice! {
    /// Where a neural surrogate's tangent features are taken.
    pub enum Features {
        /// At the initial weights θ0 (the thesis's choice).
        Static = "static",
        /// At the trained weights θ_t (NeuralBO's independent draws only).
        Dynamic = "dynamic",
    }
}

choice! {
    /// How NeuralBO draws its Thompson sample.
    pub enum Draw {
        /// One weight-space draw of the linearized model: a function with the paper's
        /// marginals N(h(x), ν²σ²(x)), minimized over Sobol candidates and refined by
        /// gradient steps.
        Pathwise = "pathwise",
        /// The paper's: independent N(h(x), ν²σ²(x)) at each candidate, the smallest taken.
        Independent = "independent",
    }
}

choice! {
    /// Where each step's training starts.
    pub enum Start {
        /// θ0, for the whole schedule (the papers').
        Initial = "initial",
        /// The previous step's trained network, for `warm_steps` Adam steps. The loss (its
        /// pull toward θ0 included) is the same; the cost per step no longer grows with t.
        Previous = "previous",
    }
}

choice! {
    /// How PINN-BO draws its residual points.
    pub enum ResidualSampling {
        Sobol = "sobol",
        Uniform = "uniform",
    }
}

choice! {
    /// How PINN-BO weighs its residual equations.
    pub enum ResidualScaling {
        /// Each point's equation scaled to the prior variance of a value there.
        Point = "point",
        /// One factor for all points (the thesis's).
        Global = "global",
    }
}

choice! {
    /// Where a cold fit of PINN-BO's network starts.
    pub enum NetworkInit {
        /// A new draw per cold fit, from the step's random stream: the trained network is a
        /// different sample each time, which is what lets the step explore.
        Fresh = "fresh",
        /// The run's one draw θ0 (the thesis's: then the fit is the same function of the data
        /// at every step, and ν_t only rescales it).
        Fixed = "fixed",
    }
}

choice! {
    /// PINN-BO's surrogate.
    pub enum PinnSurrogate {
        /// The trained physics-informed network, minimized (the thesis's algorithm).
        Pinn = "pinn",
        /// The NTK-PINN Gaussian process of Lemma 5.3.4, its lower bound `μ − ν_t σ`
        /// minimized.
        NtkGp = "ntk-gp",
    }
}

choice! {
    /// A Gaussian process's covariance.
    pub enum Kernel {
        Matern52 = "matern52",
        /// Squared exponential.
        Se = "se",
    }
}

choice! {
    /// The prior on a Gaussian process's length scales.
    pub enum Prior {
        /// None: maximum likelihood.
        None = "none",
        /// Log-normal, its median growing as √d (docs/algorithms.md §6).
        DimensionScaled = "dimension-scaled",
    }
}

choice! {
    /// A Gaussian process's prior mean.
    pub enum Mean {
        /// A constant fitted with the hyperparameters.
        Constant = "constant",
        /// The observations' average.
        Average = "average",
    }
}

choice! {
    /// A plain GP method's transform of the objective's values before the fit.
    pub enum Warp {
        /// `power` where the values are exact (the file's closed forms and fdm fields
        /// without added noise), else `none`.
        Auto = "auto",
        /// A power transform fitted to the values (Box–Cox or Yeo–Johnson).
        Power = "power",
        /// The values as observed.
        None = "none",
    }
}

choice! {
    /// physics-gp's acquisition criterion.
    pub enum Criterion {
        /// Expected improvement (log EI, times the feasibility probability).
        Ei = "ei",
        /// Lower confidence bound (UCB's minimization form).
        Ucb = "ucb",
        /// Thompson sampling.
        Ts = "ts",
    }
}

choice! {
    /// How physics-gp's residual equations' noise is set.
    pub enum PdeScaling {
        /// Each equation by its own scale.
        Point = "point",
        /// One relative noise for all of them.
        Global = "global",
    }
}

choice! {
    /// Whether physics-gp checks its pde against the data, and how.
    pub enum Check {
        /// The higher mean leave-one-out log density of the observations.
        CrossValidation = "cross-validation",
        /// Cross-validation, and once a proposal has been observed, also the higher total
        /// log density of the proposals' values, each predicted by the models fitted before
        /// it was observed: the pde's model is kept only when it wins both.
        Prequential = "prequential",
        /// Always the pde's model.
        None = "none",
        /// The pde's model with a discrepancy it does not govern (docs/algorithms.md §8): the
        /// data decide how much of the observations the pde explains, step by step.
        Discrepancy = "discrepancy",
    }
}

choice! {
    /// Whether physics-gp also fits its pde's model in coordinates stretched towards the
    /// box's faces (and keeps the one that predicts held-out observations better).
    pub enum Stretch {
        /// Where a maximum principle puts the optimum on the faces.
        Faces = "faces",
        Always = "always",
        None = "none",
    }
}

choice! {
    /// An FDM oracle's time stepping.
    pub enum Scheme {
        CrankNicolson = "crank-nicolson",
        BackwardEuler = "backward-euler",
    }
}

choice! {
    /// How an FDM field is read between nodes.
    pub enum Interpolation {
        /// O(h²).
        Linear = "linear",
        /// Four-point Lagrange, O(h⁴).
        Cubic = "cubic",
    }
}

choice! {
    /// What a command oracle's program prints.
    pub enum CommandOutput {
        /// One number: the objective.
        Number = "number",
        /// `{"objective": .., "constraints": [..]}`.
        Json = "json",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_read_by_its_name() {
        assert_eq!(Check::from_name("prequential"), Some(Check::Prequential));
        assert_eq!(Kernel::from_name("rbf"), None);
        assert_eq!(Region::NAMES, &["global", "trust", "auto"]);
    }
}
