//! Multi-indices (which partial derivatives a jet carries) and the combinatorics of
//! propagating them: Leibniz's rule for products and Faà di Bruno's formula for compositions.
//!
//! A multi-index is a multiset of input coordinates, stored sorted: `[0, 0, 1]` is
//! ∂³/∂x₀²∂x₁. A jet carries the derivatives of one index set, which is always closed under
//! taking sub-multisets, because the rules for `∂^α (f g)` and `∂^α g(f)` only read
//! derivatives of `f` and `g` at sub-multisets of `α`.

use std::collections::{BTreeSet, HashMap};

/// A sorted multiset of coordinates.
pub type MultiIndex = Vec<usize>;

/// One term of Leibniz's rule: `coef * ∂^left f * ∂^right g`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProductTerm {
    pub left: usize,
    pub right: usize,
    pub coef: f64,
}

/// One term of Faà di Bruno's formula: `coef * g^(order)(f) * Π ∂^block f`, blocks by id.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainTerm {
    pub blocks: Vec<usize>,
    pub coef: f64,
}

/// A set of multi-indices closed under sub-multisets, the empty one (the value) first.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexSet {
    indices: Vec<MultiIndex>,
    position: HashMap<MultiIndex, usize>,
    products: Vec<Vec<ProductTerm>>,
    chains: Vec<Vec<ChainTerm>>,
}

impl IndexSet {
    /// The closure of `wanted` under sub-multisets, in a deterministic order (by order, then
    /// lexicographically), with the propagation tables.
    pub fn closure<'a>(wanted: impl IntoIterator<Item = &'a MultiIndex>) -> IndexSet {
        let mut all: BTreeSet<(usize, MultiIndex)> = BTreeSet::new();
        all.insert((0, Vec::new()));
        for alpha in wanted {
            let mut sorted = alpha.clone();
            sorted.sort_unstable();
            for sub in sub_multisets(&sorted) {
                all.insert((sub.len(), sub));
            }
        }
        let indices: Vec<MultiIndex> = all.into_iter().map(|(_, m)| m).collect();
        let position = indices
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), i))
            .collect();
        let mut set = IndexSet {
            indices,
            position,
            products: Vec::new(),
            chains: Vec::new(),
        };
        set.products = set.indices.iter().map(|a| set.leibniz(a)).collect();
        set.chains = set.indices.iter().map(|a| set.faa_di_bruno(a)).collect();
        set
    }

    /// Only the value.
    pub fn value_only() -> IndexSet {
        IndexSet::closure(&[])
    }

    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    pub fn indices(&self) -> &[MultiIndex] {
        &self.indices
    }

    /// Where a multi-index (in any order) sits, if the set has it.
    pub fn find(&self, alpha: &[usize]) -> Option<usize> {
        let mut sorted = alpha.to_vec();
        sorted.sort_unstable();
        self.position.get(&sorted).copied()
    }

    /// The highest order in the set.
    pub fn order(&self) -> usize {
        self.indices.iter().map(Vec::len).max().unwrap_or(0)
    }

    pub fn products(&self, id: usize) -> &[ProductTerm] {
        &self.products[id]
    }

    pub fn chains(&self, id: usize) -> &[ChainTerm] {
        &self.chains[id]
    }

    /// `∂^α (f g) = Σ_{β ⊆ α} Π_i C(α_i, β_i) ∂^β f ∂^{α-β} g`.
    fn leibniz(&self, alpha: &MultiIndex) -> Vec<ProductTerm> {
        let mut out: Vec<ProductTerm> = Vec::new();
        // Over subsets of positions; equal sub-multisets merge, which sums to the binomials.
        for mask in 0..1usize << alpha.len() {
            let (mut beta, mut rest) = (Vec::new(), Vec::new());
            for (p, &c) in alpha.iter().enumerate() {
                if mask >> p & 1 == 1 {
                    beta.push(c);
                } else {
                    rest.push(c);
                }
            }
            let (left, right) = (self.position[&beta], self.position[&rest]);
            match out.iter_mut().find(|t| t.left == left && t.right == right) {
                Some(t) => t.coef += 1.0,
                None => out.push(ProductTerm {
                    left,
                    right,
                    coef: 1.0,
                }),
            }
        }
        out
    }

    /// `∂^α g(f) = Σ_{partitions π of α's positions} g^(|π|)(f) Π_{B ∈ π} ∂^B f`, with equal
    /// block lists merged. The value (α empty) has the single term g(f).
    fn faa_di_bruno(&self, alpha: &MultiIndex) -> Vec<ChainTerm> {
        let mut out: Vec<ChainTerm> = Vec::new();
        for partition in set_partitions(alpha.len()) {
            let mut blocks: Vec<usize> = partition
                .iter()
                .map(|block| {
                    let mut m: MultiIndex = block.iter().map(|&p| alpha[p]).collect();
                    m.sort_unstable();
                    self.position[&m]
                })
                .collect();
            blocks.sort_unstable();
            match out.iter_mut().find(|t| t.blocks == blocks) {
                Some(t) => t.coef += 1.0,
                None => out.push(ChainTerm { blocks, coef: 1.0 }),
            }
        }
        out
    }
}

/// Every sub-multiset of a sorted multiset, each once, sorted.
fn sub_multisets(alpha: &[usize]) -> Vec<MultiIndex> {
    let mut out: BTreeSet<MultiIndex> = BTreeSet::new();
    for mask in 0..1usize << alpha.len() {
        out.insert(
            (0..alpha.len())
                .filter(|p| mask >> p & 1 == 1)
                .map(|p| alpha[p])
                .collect(),
        );
    }
    out.into_iter().collect()
}

/// All set partitions of {0, .., n-1} (Bell(n) of them; n <= 4 in practice, so 15 at most).
/// The empty set has one partition, with no blocks.
fn set_partitions(n: usize) -> Vec<Vec<Vec<usize>>> {
    let mut out = vec![Vec::new()];
    for element in 0..n {
        let mut next = Vec::new();
        for partition in &out {
            for b in 0..partition.len() {
                let mut p: Vec<Vec<usize>> = partition.clone();
                p[b].push(element);
                next.push(p);
            }
            let mut p = partition.clone();
            p.push(vec![element]);
            next.push(p);
        }
        out = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_tables_for_a_fourth_derivative() {
        let set = IndexSet::closure(&[vec![0, 0, 0, 0]]);
        assert_eq!(set.len(), 5);
        assert_eq!(set.order(), 4);
        let a4 = set.find(&[0, 0, 0, 0]).unwrap();
        // (fg)'''' = f g'''' + 4 f' g''' + 6 f'' g'' + 4 f''' g' + f'''' g
        let mut coefs: Vec<f64> = set.products(a4).iter().map(|t| t.coef).collect();
        coefs.sort_by(f64::total_cmp);
        assert_eq!(coefs, vec![1.0, 1.0, 4.0, 4.0, 6.0]);
        // g(f)'''' has the five integer partitions of 4 with multiplicities 1, 4, 3, 6, 1.
        let mut chains: Vec<(usize, f64)> = set
            .chains(a4)
            .iter()
            .map(|t| (t.blocks.len(), t.coef))
            .collect();
        chains.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        assert_eq!(
            chains,
            vec![(1, 1.0), (2, 3.0), (2, 4.0), (3, 6.0), (4, 1.0)]
        );
    }

    #[test]
    fn mixed_partials_close_over_their_parts() {
        let set = IndexSet::closure(&[vec![1, 0]]);
        let ids: Vec<&MultiIndex> = set.indices().iter().collect();
        assert_eq!(ids, vec![&vec![], &vec![0], &vec![1], &vec![0, 1]]);
        assert_eq!(set_partitions(4).len(), 15);
        assert_eq!(set.find(&[1, 0]), Some(3));
        assert_eq!(set.find(&[1, 1]), None);
    }
}
