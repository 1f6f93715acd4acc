//! The reference broad phase: every pair of boxes tested at every update.
//! O(n²) per update, obviously right, used to check the others (tests run
//! every implementation through one harness against it).

use glam::Vec3;

use super::pairs::{PairTable, pair_key};
use super::{
    BroadPhase, BroadPhaseError, BroadPhaseStats, InvariantError, PairChanges, PairFilter, PairKey,
    ProxyKey, check_insert, ray_box, ray_is_valid,
};
use crate::math::Aabb;

#[derive(Clone, Copy, Debug)]
struct Proxy {
    aabb: Aabb,
    is_static: bool,
    moved: bool,
}

/// Every pair of boxes, every update. See the module docs.
#[derive(Default)]
pub struct BruteForce {
    proxies: Vec<Option<Proxy>>,
    table: PairTable,
    stats: BroadPhaseStats,
    found: Vec<PairKey>,
}

impl BruteForce {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    fn proxy_mut(&mut self, key: ProxyKey) -> Result<&mut Proxy, BroadPhaseError> {
        self.proxies
            .get_mut(key as usize)
            .and_then(Option::as_mut)
            .ok_or(BroadPhaseError::UnknownProxy(key))
    }

    fn live(&self) -> impl Iterator<Item = (ProxyKey, &Proxy)> + '_ {
        (0..)
            .zip(&self.proxies)
            .filter_map(|(k, p)| p.as_ref().map(|p| (k, p)))
    }
}

impl BroadPhase for BruteForce {
    fn insert(
        &mut self,
        key: ProxyKey,
        aabb: Aabb,
        is_static: bool,
    ) -> Result<(), BroadPhaseError> {
        check_insert(key, &aabb)?;
        let i = key as usize;
        if i >= self.proxies.len() {
            self.proxies.resize(i + 1, None);
        }
        if self.proxies[i].is_some() {
            return Err(BroadPhaseError::KeyInUse(key));
        }
        self.proxies[i] = Some(Proxy {
            aabb,
            is_static,
            moved: true,
        });
        Ok(())
    }

    fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
        self.proxy_mut(key)?;
        self.proxies[key as usize] = None;
        Ok(())
    }

    fn set_aabb(&mut self, key: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        let p = self.proxy_mut(key)?;
        p.aabb = aabb;
        p.moved = true;
        Ok(())
    }

    fn set_static(&mut self, key: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError> {
        self.proxy_mut(key)?.is_static = is_static;
        Ok(())
    }

    /// Every pair is asked again at every update anyway.
    fn refilter(&mut self, _: ProxyKey) {}

    fn refilter_pair(&mut self, _: ProxyKey, _: ProxyKey) {}

    fn update(&mut self, filter: &dyn PairFilter) {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let live: Vec<(ProxyKey, Proxy)> = self.live().map(|(k, p)| (k, *p)).collect();
        for (i, &(a, pa)) in live.iter().enumerate() {
            for &(b, pb) in &live[i + 1..] {
                if !(pa.is_static && pb.is_static)
                    && pa.aabb.overlaps(&pb.aabb)
                    && filter.allows(a, b)
                {
                    found.push(pair_key(a, b));
                }
            }
        }
        found.sort_unstable();
        self.table
            .remove_where(|k| found.binary_search(&k).is_err());
        for &key in &found {
            self.table.add(key);
        }
        self.found = found;
        let mut moved = 0;
        for p in self.proxies.iter_mut().flatten() {
            moved += u32::from(std::mem::take(&mut p.moved));
        }
        self.stats = BroadPhaseStats {
            moved,
            ..Default::default()
        };
    }

    fn drain_changes(&mut self, out: &mut PairChanges) {
        self.table.drain(out);
    }

    fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.table.is_active(a, b)
    }

    fn for_each_active(&self, visit: &mut dyn FnMut(PairKey)) {
        self.table.active().for_each(visit);
    }

    fn box_pairs(&self) -> usize {
        self.table.len()
    }

    fn aabb(&self, key: ProxyKey) -> Option<Aabb> {
        self.proxies.get(key as usize)?.map(|p| p.aabb)
    }

    fn query_aabb(&self, aabb: &Aabb, visit: &mut dyn FnMut(ProxyKey)) {
        if !aabb.min.cmple(aabb.max).all() {
            return;
        }
        for (k, p) in self.live() {
            if p.aabb.overlaps(aabb) {
                visit(k);
            }
        }
    }

    fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f32,
        visit: &mut dyn FnMut(ProxyKey, f32) -> f32,
    ) {
        if !ray_is_valid(origin, dir, max_toi) {
            return;
        }
        let mut limit = max_toi;
        for (k, p) in self.live() {
            if let Some((t, _)) = ray_box(origin, dir, &p.aabb, limit) {
                limit = visit(k, t);
            }
        }
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }

    fn validate(&self, filter: &dyn PairFilter) -> Result<(), InvariantError> {
        let live: Vec<_> = self.live().map(|(k, p)| (k, p.aabb, p.is_static)).collect();
        self.table.check_exact(&live, filter)
    }
}
