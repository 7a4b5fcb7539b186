//! Multi-indices (which partial derivatives a jet carries) and the combinatorics of
//! propagating them: Leibniz's rule for products and Faà di Bruno's formula for compositions.
//!
//! A multi-index is a multiset of input coordinates, stored sorted: `[0, 0, 1]` is
//! ∂³/∂x₀²∂x₁. A jet carries the derivatives of one index set, which is always closed under
//! taking sub-multisets, because the rules for `∂^α (f g)` and `∂^α g(f)` only read
//! derivatives of `f` and `g` at sub-multisets of `α`.
//!
//! A set may also carry *sums* ("collapsed" entries): `Σ_{α∈S} ∂^α f` as one coefficient, in
//! place of its members, when only the sum is wanted (a Laplacian is `∂xx + ∂yy`). Every term
//! of the rules for a member reads proper sub-multisets, except the one with the whole member
//! (`∂^α f · g`, or `g'(f) ∂^α f`), and those sum over S to the sum entry itself. So the sum
//! propagates exactly, one coefficient instead of |S|.

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

/// A set of multi-indices closed under sub-multisets, the empty one (the value) first, then
/// any sum entries (after all the multi-indices).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexSet {
    indices: Vec<MultiIndex>,
    position: HashMap<MultiIndex, usize>,
    /// Sum entries: each a sorted list of distinct multi-indices, none of them in `indices`.
    sums: Vec<Vec<MultiIndex>>,
    products: Vec<Vec<ProductTerm>>,
    chains: Vec<Vec<ChainTerm>>,
}

impl IndexSet {
    /// The closure of `wanted` under sub-multisets, in a deterministic order (by order, then
    /// lexicographically), with the propagation tables.
    pub fn closure<'a>(wanted: impl IntoIterator<Item = &'a MultiIndex>) -> IndexSet {
        IndexSet::with_sums(wanted, &[])
    }

    /// The closure of `wanted` and of the proper sub-multisets of every sum's members, with
    /// the sums as extra entries. A sum whose member is also in the closure is carried as
    /// a sum all the same (correct, only redundant); callers avoid it.
    pub fn with_sums<'a>(
        wanted: impl IntoIterator<Item = &'a MultiIndex>,
        sums: &[Vec<MultiIndex>],
    ) -> IndexSet {
        let wanted: Vec<MultiIndex> = wanted.into_iter().cloned().collect();
        let sums: Vec<Vec<MultiIndex>> = sums.iter().map(|s| normalized(s)).collect();
        let proper_parts: Vec<MultiIndex> = sums
            .iter()
            .flatten()
            .flat_map(|alpha| {
                sub_multisets(alpha)
                    .into_iter()
                    .filter(|sub| sub.len() < alpha.len())
            })
            .collect();
        let mut all: BTreeSet<(usize, MultiIndex)> = BTreeSet::new();
        all.insert((0, Vec::new()));
        for alpha in wanted.iter().chain(&proper_parts) {
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
            sums,
            products: Vec::new(),
            chains: Vec::new(),
        };
        let entries: Vec<Vec<MultiIndex>> = (0..set.len())
            .map(|k| set.members(k).into_iter().cloned().collect())
            .collect();
        set.products = entries
            .iter()
            .enumerate()
            .map(|(k, members)| set.leibniz(k, members))
            .collect();
        set.chains = entries
            .iter()
            .enumerate()
            .map(|(k, members)| set.faa_di_bruno(k, members))
            .collect();
        set
    }

    /// Only the value.
    pub fn value_only() -> IndexSet {
        IndexSet::closure(&[])
    }

    /// Entries: multi-indices, then sums.
    pub fn len(&self) -> usize {
        self.indices.len() + self.sums.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The multi-index entries (not the sums).
    pub fn indices(&self) -> &[MultiIndex] {
        &self.indices
    }

    /// The sum entries; sum `s` is entry `indices().len() + s`.
    pub fn sums(&self) -> &[Vec<MultiIndex>] {
        &self.sums
    }

    /// Where the sum of these multi-indices (in any order) sits, if the set carries it.
    pub fn find_sum(&self, members: &[MultiIndex]) -> Option<usize> {
        let wanted = normalized(members);
        self.sums
            .iter()
            .position(|s| *s == wanted)
            .map(|s| self.indices.len() + s)
    }

    /// The multi-indices entry `k` adds up: one for a plain entry, several for a sum.
    pub fn members(&self, k: usize) -> Vec<&MultiIndex> {
        match k.checked_sub(self.indices.len()) {
            Some(s) => self.sums[s].iter().collect(),
            None => vec![&self.indices[k]],
        }
    }

    /// Where a multi-index (in any order) sits, if the set has it.
    pub fn find(&self, alpha: &[usize]) -> Option<usize> {
        let mut sorted = alpha.to_vec();
        sorted.sort_unstable();
        self.position.get(&sorted).copied()
    }

    /// The highest order in the set.
    pub fn order(&self) -> usize {
        self.indices
            .iter()
            .chain(self.sums.iter().flatten())
            .map(Vec::len)
            .max()
            .unwrap_or(0)
    }

    pub fn products(&self, id: usize) -> &[ProductTerm] {
        &self.products[id]
    }

    pub fn chains(&self, id: usize) -> &[ChainTerm] {
        &self.chains[id]
    }

    /// Where a part of a member of entry `k` sits: the whole member is entry `k` itself
    /// (for a plain entry that is its own position; for a sum, the sum), a proper part is a
    /// plain entry.
    fn part(&self, k: usize, member: &MultiIndex, part: &MultiIndex) -> usize {
        if part.len() == member.len() {
            k
        } else {
            self.position[part]
        }
    }

    /// `∂^α (f g) = Σ_{β ⊆ α} Π_i C(α_i, β_i) ∂^β f ∂^{α-β} g`, summed over the entry's
    /// members; the terms with the whole member (β = α or β = ∅) are taken once.
    fn leibniz(&self, k: usize, members: &[MultiIndex]) -> Vec<ProductTerm> {
        let mut out: Vec<ProductTerm> = Vec::new();
        for (m, alpha) in members.iter().enumerate() {
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
                let whole = beta.len() == alpha.len() || rest.len() == alpha.len();
                if whole && m > 0 && !alpha.is_empty() {
                    continue;
                }
                let (left, right) = (self.part(k, alpha, &beta), self.part(k, alpha, &rest));
                match out.iter_mut().find(|t| t.left == left && t.right == right) {
                    Some(t) => t.coef += 1.0,
                    None => out.push(ProductTerm {
                        left,
                        right,
                        coef: 1.0,
                    }),
                }
            }
        }
        out
    }

    /// `∂^α g(f) = Σ_{partitions π of α's positions} g^(|π|)(f) Π_{B ∈ π} ∂^B f`, summed over
    /// the entry's members (the one-block term, `g'(f) ∂^α f`, taken once), equal block lists
    /// merged. The value (α empty) has the single term g(f).
    fn faa_di_bruno(&self, k: usize, members: &[MultiIndex]) -> Vec<ChainTerm> {
        let mut out: Vec<ChainTerm> = Vec::new();
        for (m, alpha) in members.iter().enumerate() {
            for partition in set_partitions(alpha.len()) {
                if partition.len() == 1 && m > 0 {
                    continue;
                }
                let mut blocks: Vec<usize> = partition
                    .iter()
                    .map(|block| {
                        let mut part: MultiIndex = block.iter().map(|&p| alpha[p]).collect();
                        part.sort_unstable();
                        self.part(k, alpha, &part)
                    })
                    .collect();
                blocks.sort_unstable();
                match out.iter_mut().find(|t| t.blocks == blocks) {
                    Some(t) => t.coef += 1.0,
                    None => out.push(ChainTerm { blocks, coef: 1.0 }),
                }
            }
        }
        out
    }
}

/// Multi-indices sorted inside and among themselves, duplicates removed: the canonical form
/// of a list of multi-indices (sum members, index-set keys).
pub(crate) fn normalized(members: &[MultiIndex]) -> Vec<MultiIndex> {
    let mut out: Vec<MultiIndex> = members
        .iter()
        .map(|a| {
            let mut a = a.clone();
            a.sort_unstable();
            a
        })
        .collect();
    out.sort();
    out.dedup();
    out
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

    /// A Laplacian sum over two inputs: its tables are the members' tables with the
    /// whole-member terms taken once, pointing at the sum.
    #[test]
    fn a_sum_entry_propagates_as_the_sum_of_its_members() {
        let lap = vec![vec![0, 0], vec![1, 1]];
        let set = IndexSet::with_sums(&[], std::slice::from_ref(&lap));
        let ids: Vec<&MultiIndex> = set.indices().iter().collect();
        assert_eq!(ids, vec![&vec![], &vec![0], &vec![1]]);
        assert_eq!(set.len(), 4);
        let k = set.find_sum(&[vec![1, 1], vec![0, 0]]).unwrap();
        assert_eq!(k, 3);
        assert_eq!(set.order(), 2);
        // Δ g(f) = g'(f) Δf + g''(f) (f_x² + f_y²)
        let mut chains: Vec<(Vec<usize>, f64)> = set
            .chains(k)
            .iter()
            .map(|t| (t.blocks.clone(), t.coef))
            .collect();
        chains.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            chains,
            vec![(vec![1, 1], 1.0), (vec![2, 2], 1.0), (vec![3], 1.0)]
        );
        // Δ(fg) = Δf g + 2 (f_x g_x + f_y g_y) + f Δg
        let mut products: Vec<(usize, usize, f64)> = set
            .products(k)
            .iter()
            .map(|t| (t.left, t.right, t.coef))
            .collect();
        products.sort_by_key(|t| (t.0, t.1));
        assert_eq!(
            products,
            vec![(0, 3, 1.0), (1, 1, 2.0), (2, 2, 2.0), (3, 0, 1.0)]
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
