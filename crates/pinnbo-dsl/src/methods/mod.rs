//! Every method the `method` statement can name, with one declaration per setting: its key,
//! the values it accepts, its default and a line of documentation. The checker checks files
//! against these tables, each strategy's constructor reads its settings through them (with
//! their defaults), `pinnbo methods` prints them, and docs/dsl.md's settings table is
//! generated from them ([`markdown`]; a test keeps the two equal).

use crate::choices::{
    Activation, Check, Choice, Criterion, Draw, Features, Hardware, Kernel, Mean, NetworkInit,
    PdeScaling, PinnSurrogate, Precision, Prior, Refinement, Region, ResidualSampling,
    ResidualScaling, Start, Stretch, Warp,
};
use crate::ir::Settings;
use crate::spec::{Declared, Default, Kind, Spec};

mod settings;
pub use settings::MethodSettings;

/// A method the `method` statement can name.
#[derive(Debug)]
pub struct MethodInfo {
    pub name: &'static str,
    pub summary: &'static str,
    groups: &'static [&'static [Spec]],
    /// Settings that act only under certain values of another of the method's settings.
    pub only_when: &'static [OnlyWhen],
}

/// `setting` acts only while `other` is one of `values`: a file that sets it otherwise is
/// warned (`pde::setting-without-effect`), naming both settings.
#[derive(Debug)]
pub struct OnlyWhen {
    pub setting: &'static str,
    pub other: &'static str,
    pub values: &'static [&'static str],
}

impl MethodInfo {
    /// Every setting the method takes, in the order of its documentation.
    pub fn settings(&self) -> impl Iterator<Item = &'static Spec> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }

    /// The method's settings read through its table.
    pub fn read<'a>(&'static self, settings: &'a Settings) -> Declared<'a> {
        Declared::new(self.name, self.groups, settings)
    }

    /// The declaration of `key`, if the method takes it.
    pub fn setting(&self, key: &str) -> Option<&'static Spec> {
        self.settings().find(|s| s.key == key)
    }
}

/// The method called `name`.
pub fn method(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

pub fn method_names() -> impl Iterator<Item = &'static str> {
    METHODS.iter().map(|m| m.name)
}

// Settings several methods share; each method gives its own default.

const fn width(default: u64) -> Spec {
    Spec::new(
        "width",
        Kind::Int { min: 1 },
        Default::Int(default),
        "units per hidden layer",
    )
}

const fn depth(default: u64) -> Spec {
    Spec::new(
        "depth",
        Kind::Int { min: 1 },
        Default::Int(default),
        "hidden layers",
    )
}

const fn activation(default: &'static str) -> Spec {
    Spec::new(
        "activation",
        Kind::Choice(Activation::NAMES),
        Default::Name(default),
        "the hidden layers' activation",
    )
}

const fn lr(default: f64) -> Spec {
    Spec::new(
        "lr",
        Kind::Positive,
        Default::Number(default),
        "Adam's learning rate",
    )
}

const fn candidates(default: u64) -> Spec {
    Spec::new(
        "candidates",
        Kind::Int { min: 1 },
        Default::Int(default),
        "Sobol candidates the acquisition scores",
    )
}

const ACQUISITION: Spec = Spec::new(
    "acquisition",
    Kind::Choice(Refinement::NAMES),
    Default::Name("refine"),
    "`refine`: the best candidates are improved (GP methods: projected L-BFGS with exact \
     gradients from the best ten; neural methods: projected gradient steps from the best \
     five); `random`: the best candidate is taken as it is",
);

const fn region(default: &'static str) -> Spec {
    Spec::new(
        "region",
        Kind::Choice(Region::NAMES),
        Default::Name(default),
        "where the acquisition looks: the whole box, or a trust region around the best point \
         (side 0.1 of the box at first, halved after 5 proposals without improvement, doubled \
         after 3 with); `auto` is `trust` above 20 variables, `global` up to 20",
    )
}

// Every method that trains a network takes it; the GP methods' dense f64 algebra stays on
// the CPU.
const DEVICE: Spec = Spec::new(
    "device",
    Kind::Choice(Hardware::NAMES),
    Default::Name("cpu"),
    "where the network is trained: `cuda` needs a build with the `cuda` feature and a GPU \
     (docs/gpu.md); `solve --device` and `bench --device` set it too",
);

/// The NeuralBO surrogate (NeuralBO, Neural-CBO).
// NeuralBO's network: one hidden layer of 500, the paper's BBOB network. Two layers of 100
// (the earlier default, still Neural-CBO's) explored a fifth as much from 50 evaluations on
// at d = 10: lower share of BBOB's targets on 23 of 24 functions, lower regret on 5 of 5 new
// 10-D problems (docs/decisions.md, "NeuralBO's network").
const NEURAL_BO_NETWORK: &[Spec] = &[width(500), depth(1)];

const NEURAL_CBO_NETWORK: &[Spec] = &[width(100), depth(2)];

const NEURAL_SURROGATE: &[Spec] = &[
    activation("relu"),
    // Zero biases make a ReLU network positively homogeneous on the centred inputs: linear
    // along every ray from the domain's centre, with h and the prior variance pinned there.
    // On Ackley-10 NeuralBO then never left the initial design's best (20.09); with N(0, 1)
    // biases it reached 12-13 (docs/decisions.md, "hidden biases").
    Spec::new(
        "bias",
        Kind::Positive,
        Default::Number(1.0),
        "standard deviation of the hidden biases at initialization",
    ),
    Spec::new(
        "lambda",
        Kind::Positive,
        Default::Number(0.01),
        "regularization λ: the pull m λ ||θ − θ0||² toward the initial weights, and the \
         variance's prior",
    ),
    // The papers' schedule: 50 epochs of mini-batches of 50.
    Spec::new(
        "epochs",
        Kind::Int { min: 1 },
        Default::Int(50),
        "passes over the observations per fit",
    ),
    Spec::new(
        "batch",
        Kind::Int { min: 1 },
        Default::Int(50),
        "observations per Adam step",
    ),
    // 50 epochs of one batch are 50 steps at lr 1e-4: far from a fit. On constrained Branin
    // (40 evaluations) Neural-CBO's best went 4.76 -> 1.71 with 500 steps.
    Spec::new(
        "steps",
        Kind::Int { min: 1 },
        Default::Int(500),
        "at least this many Adam steps per fit (epochs are added to reach it)",
    ),
    // Adam's steps are not scaled by the gradient: with the sqrt(m) output factor the papers'
    // 1e-3 oscillates at width 500 (training loss above the data's variance); 1e-4 fits.
    lr(1e-4),
    Spec::new(
        "dtype",
        Kind::Choice(Precision::NAMES),
        Default::Name("f64"),
        "training precision (candidates are screened in f32 either way)",
    ),
    DEVICE,
];

const NEURAL_BO: &[Spec] = &[
    Spec::new(
        "features",
        Kind::Choice(Features::NAMES),
        Default::Name("static"),
        "tangent features at the initial weights θ0 (the papers'), or at the trained weights \
         (then drawn independently per candidate)",
    ),
    Spec::new(
        "nu",
        Kind::Positive,
        Default::Number(1.0),
        "ν: the Thompson sample's spread, ν σ(x)",
    ),
    Spec::new(
        "draw",
        Kind::Choice(Draw::NAMES),
        Default::Name("pathwise"),
        "one function drawn and refined, or the papers' independent draw per candidate",
    ),
    Spec::new(
        "start",
        Kind::Choice(Start::NAMES),
        Default::Name("initial"),
        "where each step's training starts: θ0 for the whole schedule (the papers'), or the \
         previous step's network for `warm_steps` steps (saved with the journal for --resume)",
    ),
    Spec::new(
        "warm_steps",
        Kind::Int { min: 1 },
        Default::Int(100),
        "Adam steps of a warm start (rounded up to whole epochs)",
    ),
    warp("none"),
    candidates(10_000),
    ACQUISITION,
    region("auto"),
];

const NEURAL_CBO: &[Spec] = &[
    Spec::new(
        "beta",
        Kind::Positive,
        Default::Number(2.0),
        "β: a point is feasible when every constraint's lower bound u(x) − β σ(x) is ≤ 0",
    ),
    candidates(2048),
    ACQUISITION,
    region("auto"),
];

const NEURAL_GREEDY: &[Spec] = &[
    width(1000),
    depth(1),
    activation("tanh"),
    Spec::new(
        "lambda",
        Kind::Positive,
        Default::Number(0.0),
        "σ²: the variance of the targets' perturbation and the weight of the pull toward θ0 \
         (0: exploration from re-initialization alone, as in the paper)",
    ),
    Spec::new(
        "epochs",
        Kind::Int { min: 1 },
        Default::Int(500),
        "full-batch Adam steps per fit",
    ),
    lr(1e-3),
    candidates(2048),
    ACQUISITION,
    region("auto"),
    DEVICE,
];

const PINN_BO: &[Spec] = &[
    width(100),
    depth(3),
    activation("tanh"),
    // Zero biases with the box's centre mapped to 0 make a tanh network's draw exactly odd
    // about the centre (as for NeuralBO, docs/decisions.md "hidden biases").
    Spec::new(
        "bias",
        Kind::Positive,
        Default::Number(1.0),
        "standard deviation of the hidden biases at initialization",
    ),
    Spec::new(
        "lambda",
        Kind::Positive,
        Default::Number(1.0),
        "λ1 = λ2 of the information terms in ν_t",
    ),
    Spec::new(
        "nu",
        Kind::Positive,
        Default::Computed("ν_t from the information gain and the interaction information"),
        "a fixed output scale ν instead of ν_t",
    ),
    Spec::new(
        "residual_points",
        Kind::Int { min: 1 },
        Default::Int(500),
        "collocation points where the pde's residual is trained",
    ),
    Spec::new(
        "residual_batch",
        Kind::Int { min: 1 },
        Default::Int(125),
        "residual points per Adam step, dealt from a shuffled order that is drawn again once \
         every point was used (a step costs that share of a pass over all of them)",
    ),
    Spec::new(
        "lambda_r",
        Kind::Positive,
        Default::Number(1.0),
        "weight of the pde's mean squared residual against the data's",
    ),
    Spec::new(
        "sampling",
        Kind::Choice(ResidualSampling::NAMES),
        Default::Name("sobol"),
        "how the residual points are drawn",
    ),
    Spec::new(
        "scaling",
        Kind::Choice(ResidualScaling::NAMES),
        Default::Name("point"),
        "each residual point's equation scaled to the prior variance of a value there (a \
         coefficient's pole cannot dominate), or one factor for all points (the thesis's)",
    ),
    Spec::new(
        "init",
        Kind::Choice(NetworkInit::NAMES),
        Default::Name("fresh"),
        "where a cold fit starts: a new draw of the initial weights each time (each fit is a \
         different sample), or the run's one draw θ0 (the thesis's)",
    ),
    Spec::new(
        "retrain_every",
        Kind::Int { min: 1 },
        Default::Int(5),
        "steps from one cold fit to the next; in between, the previous network trains on \
         (saved with the journal for --resume)",
    ),
    Spec::new(
        "warm_epochs",
        Kind::Int { min: 1 },
        Default::Int(100),
        "Adam steps of a warm fit",
    ),
    Spec::new(
        "surrogate",
        Kind::Choice(PinnSurrogate::NAMES),
        Default::Name("pinn"),
        "the trained network, minimized (the thesis's), or the NTK-PINN Gaussian process's \
         lower bound μ − ν_t σ",
    ),
    // Under-trained, the network misleads: on a 1-D bowl with its pde, 60 epochs left it worse
    // than a constant (proposals at f = 0.14, 300 epochs found 1e-4); on the custom-operator
    // example 300 epochs stayed at x = 1.23 (f = -0.22), 1,000 found the minimum at once
    // (-0.527). Training stops earlier on a plateau.
    Spec::new(
        "epochs",
        Kind::Int { min: 1 },
        Default::Int(1000),
        "Adam steps of a cold fit (fewer on a plateau)",
    ),
    lr(1e-2),
    Spec::new(
        "lr_decay",
        Kind::Positive,
        Default::Number(0.95),
        "the learning rate's factor per 100 epochs",
    ),
    candidates(2048),
    ACQUISITION,
    region("auto"),
    DEVICE,
];

/// How the objective's values are modelled: the GP methods' (default `auto`) and NeuralBO's
/// (default `none`: on BBOB a power warp lowered its share of targets reached, 0.167 to
/// 0.151 at d = 2, docs/results/bbob/).
const fn warp(default: &'static str) -> Spec {
    Spec::new(
        "warp",
        Kind::Choice(Warp::NAMES),
        Default::Name(default),
        "`power`: the objective's values are modelled through a monotone power transform \
         fitted to them (Box–Cox, or Yeo–Johnson with values of both signs; its exponent at \
         most 1, spreading the values near the minimum), unless the file states a noise level \
         above 0; `none`: as observed; `auto`: `power` where the values are exact (the file's \
         closed forms and fdm fields without added noise), else `none`",
    )
}

const GP: &[Spec] = &[
    warp("auto"),
    Spec::new(
        "kernel",
        Kind::Choice(Kernel::NAMES),
        Default::Name("matern52"),
        "the covariance: Matérn-5/2 or squared exponential, one length scale per variable",
    ),
    Spec::new(
        "prior",
        Kind::Choice(Prior::NAMES),
        Default::Name("dimension-scaled"),
        "the hyperparameters' prior: log-normal length scales whose median grows with the \
         dimension and a log-normal noise variance (a posterior mode is fitted), or none \
         (maximum likelihood)",
    ),
    Spec::new(
        "mean",
        Kind::Choice(Mean::NAMES),
        Default::Name("constant"),
        "the prior mean: a constant fitted with the hyperparameters (where the model returns \
         to away from the data), or the observations' average",
    ),
    Spec::new(
        "restarts",
        Kind::Int { min: 1 },
        Default::Int(3),
        "seeded starts of the marginal-likelihood fit, beside the previous step's optimum, \
         up to 200 observations; later fits continue from that optimum alone",
    ),
];

/// The acquisition search of the GP methods that maximize an acquisition function.
const GP_SEARCH: &[Spec] = &[candidates(2048), ACQUISITION, region("global")];

const GP_BETA: &[Spec] = &[Spec::new(
    "beta",
    Kind::Positive,
    Default::Computed("β_t = 0.4 log(d t² π² / 0.6), growing with t"),
    "β of the confidence bound μ − sqrt(β) σ",
)];

/// The physics-informed GP (docs/algorithms.md §8).
const PHYSICS_GP: &[Spec] = &[
    Spec::new(
        "criterion",
        Kind::Choice(Criterion::NAMES),
        Default::Name("ei"),
        "what is maximized: expected improvement (constrained EI with constraints), the lower \
         confidence bound, or a Thompson draw",
    ),
    Spec::new(
        "residual_points",
        Kind::Int { min: 1 },
        Default::Int(256),
        "Sobol points where the GP is conditioned on the pde",
    ),
    Spec::new(
        "scaling",
        Kind::Choice(PdeScaling::NAMES),
        Default::Name("point"),
        "each residual equation's noise: a fraction of its own prior variance (a coefficient's \
         pole cannot dominate), or one variance for all",
    ),
    Spec::new(
        "check",
        Kind::Choice(Check::NAMES),
        Default::Name("cross-validation"),
        "each step, the model without the pde is fitted too and used instead when it predicts \
         the held-out observations better (leave-one-out) or when the fitted prior could not \
         have produced the pde's targets, so a pde that is wrong or that the kernel cannot \
         carry does not mislead the search; `prequential`: the pde's model must also have \
         predicted the proposals' values, before they were observed, better over the run; \
         `none`: the pde's model always; `discrepancy`: the pde's model plus a discrepancy the \
         pde does not govern, its amplitude and length scale fitted (the faces searched only \
         while it carries below 1% of the fitted signal's variance at the observations)",
    ),
    Spec::new(
        "stretch",
        Kind::Choice(Stretch::NAMES),
        Default::Name("faces"),
        "the pde's model is also fitted in coordinates stretched towards the box's faces (a \
         warp of each variable, the pde carried through it exactly) and the one that predicts \
         the held-out observations better is used: where a maximum principle puts the \
         optimum on the faces (`faces`), at every problem (`always`), or never (`none`); \
         with params never",
    ),
    Spec::new(
        "prior",
        Kind::Choice(Prior::NAMES),
        Default::Name("dimension-scaled"),
        "the hyperparameters' prior, as for the plain GPs",
    ),
    Spec::new(
        "mean",
        Kind::Choice(Mean::NAMES),
        Default::Name("constant"),
        "the prior mean, as for the plain GPs (a constant moves each residual equation by its \
         coefficient of the field itself)",
    ),
    Spec::new(
        "restarts",
        Kind::Int { min: 1 },
        Default::Int(1),
        "quasi-Newton starts of the fit: the best of a coarse grid of hyperparameters and \
         the previous step's optimum",
    ),
];

/// The Thompson draw's candidates are fixed; only where they go can be set.
const GP_TS: &[Spec] = &[region("global")];

/// Off by default, so that runs of one budget stay comparable.
const GP_STOP: &[Spec] = &[Spec::new(
    "stop",
    Kind::Positive,
    Default::Computed("never"),
    "end the run at the first step whose largest expected improvement is below this share of \
     the observations' standard deviation (below 0.001 the run is reported converged)",
)];

/// Methods that take a known observation noise (`noise std ..`) as their noise variance.
pub const NOISE_AWARE_METHODS: &[&str] = &["gp-ei", "gp-ucb", "gp-ts", "physics-gp"];

/// UCB's β means nothing to EI or Thompson sampling, and Thompson sampling draws on its own
/// candidates, unrefined.
const PHYSICS_GP_ONLY_WHEN: &[OnlyWhen] = &[
    OnlyWhen {
        setting: "beta",
        other: "criterion",
        values: &["ucb"],
    },
    OnlyWhen {
        setting: "candidates",
        other: "criterion",
        values: &["ei", "ucb"],
    },
    OnlyWhen {
        setting: "acquisition",
        other: "criterion",
        values: &["ei", "ucb"],
    },
    OnlyWhen {
        setting: "stop",
        other: "criterion",
        values: &["ei"],
    },
];

/// A warm start's length means nothing to a cold start.
const NEURAL_BO_ONLY_WHEN: &[OnlyWhen] = &[OnlyWhen {
    setting: "warm_steps",
    other: "start",
    values: &["previous"],
}];

pub static METHODS: &[MethodInfo] = &[
    MethodInfo {
        name: "physics-gp",
        summary: "Gaussian process conditioned on the pde as well as the data (linear pdes)",
        groups: &[PHYSICS_GP, GP_BETA, GP_SEARCH, GP_STOP],
        only_when: PHYSICS_GP_ONLY_WHEN,
    },
    MethodInfo {
        name: "pinn-bo",
        summary: "physics-informed network surrogate; the pde trains it",
        groups: &[PINN_BO],
        only_when: &[],
    },
    MethodInfo {
        name: "neural-bo",
        summary: "neural Thompson sampling",
        groups: &[NEURAL_BO_NETWORK, NEURAL_SURROGATE, NEURAL_BO],
        only_when: NEURAL_BO_ONLY_WHEN,
    },
    MethodInfo {
        name: "neural-cbo",
        summary: "constrained: EI on the objective among LCB-feasible points",
        groups: &[NEURAL_CBO_NETWORK, NEURAL_SURROGATE, NEURAL_CBO],
        only_when: &[],
    },
    MethodInfo {
        name: "neural-greedy",
        summary: "perturbed targets and fresh initialization every round",
        groups: &[NEURAL_GREEDY],
        only_when: &[],
    },
    MethodInfo {
        name: "gp-ei",
        summary: "Gaussian process, expected improvement (constrained EI with constraints)",
        groups: &[GP, GP_SEARCH, GP_STOP],
        only_when: &[],
    },
    MethodInfo {
        name: "gp-ucb",
        summary: "Gaussian process, lower confidence bound",
        groups: &[GP, GP_BETA, GP_SEARCH],
        only_when: &[],
    },
    MethodInfo {
        name: "gp-ts",
        summary: "Gaussian process, Thompson sampling",
        groups: &[GP, GP_TS],
        only_when: &[],
    },
    MethodInfo {
        name: "random",
        summary: "uniform random search",
        groups: &[],
        only_when: &[],
    },
];

/// docs/dsl.md's table of methods and settings.
pub fn markdown() -> String {
    let mut out =
        String::from("| method | setting | accepts | default | meaning |\n|---|---|---|---|---|\n");
    for m in METHODS {
        out += &format!("| `{}` | | | | {} |\n", m.name, m.summary);
        for s in m.settings() {
            out += &format!(
                "| | `{}` | {} | {} | {} |\n",
                s.key,
                s.kind.describe().replace('|', "\\|"),
                s.default.describe(),
                s.doc
            );
        }
    }
    out
}

#[cfg(test)]
mod tests;
