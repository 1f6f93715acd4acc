//! From-scratch paths: a full sort and sweep after many insertions, and the
//! per-proxy recomputation after a change of layers or static flag.

use super::sort::StaticFlags;
use super::{Endpoint, PairFilter, ProxyKey, State, SweepAndPrune, allowed, pair_ids, pair_key};
use crate::math::Aabb;

impl SweepAndPrune {
    /// Sorts all lists from scratch and recomputes the pair set by one sweep
    /// along x, then applies the difference to the pair table.
    pub(super) fn rebuild<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        self.stats.rebuilt = true;
        for &id in &self.inserted {
            self.info[id as usize].state = State::Live;
        }
        self.inserted.clear();
        for &id in &self.moved {
            self.info[id as usize].moved = false;
        }
        self.moved.clear();
        for (axis, list) in self.axes.iter_mut().enumerate() {
            list.clear();
            for (id, (aabb, info)) in self.aabbs.iter().zip(&self.info).enumerate() {
                if info.state == State::Live {
                    list.push(Endpoint::new(aabb.min[axis], id as u32, false));
                    list.push(Endpoint::new(aabb.max[axis], id as u32, true));
                }
            }
            list.sort_unstable_by_key(|e| e.sort_key());
        }
        self.reindex();
        let scratch = &mut self.sweep_scratch;
        let boxes = Boxes {
            aabbs: &self.aabbs,
            statics: self.info.as_slice(),
        };
        self.stats.sweep_tests += sweep_x(&self.axes[0], boxes, filter, scratch);
        let found = &scratch.found;
        self.table
            .remove_where(|k| found.binary_search(&k).is_err());
        for &key in found {
            self.table.add(key);
        }
    }

    /// Recomputes the pairs of proxies whose filter answer or static flag
    /// changed, against every other live proxy, then the single pairs queued.
    pub(super) fn refresh_queued<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let refresh = std::mem::take(&mut self.refresh);
        for &id in &refresh {
            self.info[id as usize].refresh = false;
            if self.info[id as usize].state != State::Live {
                continue;
            }
            for q in 0..self.aabbs.len() as u32 {
                if q != id && self.info[q as usize].state == State::Live {
                    self.refresh_pair(id, q, filter);
                }
            }
        }
        self.refresh = refresh;
        self.refresh.clear();
        let pairs = std::mem::take(&mut self.refresh_pairs);
        for &key in &pairs {
            let (a, b) = pair_ids(key);
            let live = |p: u32| {
                self.info
                    .get(p as usize)
                    .is_some_and(|i| i.state == State::Live)
            };
            if live(a) && live(b) {
                self.refresh_pair(a, b, filter);
            }
        }
        self.refresh_pairs = pairs;
        self.refresh_pairs.clear();
    }

    fn refresh_pair<F: PairFilter + ?Sized>(&mut self, a: u32, b: u32, filter: &F) {
        let key = pair_key(a, b);
        let (ia, ib) = (&self.info[a as usize], &self.info[b as usize]);
        let pair = !(ia.is_static && ib.is_static)
            && self.aabbs[a as usize].overlaps(&self.aabbs[b as usize])
            && allowed(filter, key);
        if pair {
            self.table.add(key);
        } else {
            self.table.remove(key);
        }
    }
}

/// The boxes a sweep reads (indexed by the keys in the endpoints) and the
/// proxies' static flags.
pub(in crate::broad_phase) struct Boxes<'a, S: ?Sized> {
    pub aabbs: &'a [Aabb],
    pub statics: &'a S,
}

impl<S: ?Sized> Clone for Boxes<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: ?Sized> Copy for Boxes<'_, S> {}

/// All overlapping, non-static-static pairs the filter allows among the
/// proxies of the sorted x list `xs`, by one sweep, into `scratch.found`
/// (sorted). The open boxes are kept per class (the filter's group and the
/// static flag, see [`OpenClasses`]), and a box is tested only against the
/// classes it may pair with: a stack of statics or a mutually filtered
/// crowd in one spot costs a sort, not a test of every pair. Allocates
/// nothing once `scratch` has grown to the scene. Returns the number of box
/// tests.
pub(in crate::broad_phase) fn sweep_x<F: PairFilter + ?Sized, S: StaticFlags + ?Sized>(
    xs: &[Endpoint],
    boxes: Boxes<'_, S>,
    filter: &F,
    scratch: &mut SweepScratch,
) -> u64 {
    let mut tests = 0;
    let SweepScratch { found, slot, open } = scratch;
    found.clear();
    // Per proxy: its class and its index in that class's open list.
    slot.clear();
    slot.resize(boxes.aabbs.len(), (0, 0));
    open.reset();
    for e in xs {
        let p = e.proxy();
        if e.is_max() {
            let (class, i) = slot[p as usize];
            if let Some(moved) = open.close(class, i) {
                slot[moved as usize].1 = i;
            }
            continue;
        }
        let is_static = boxes.statics.is_static(p);
        let class = open.class_of(filter.group(p), is_static, filter);
        let box_p = &boxes.aabbs[p as usize];
        for q in open.partners(class) {
            tests += 1;
            // The catch-all class may hold statics.
            if !(is_static && boxes.statics.is_static(q))
                && box_p.overlaps(&boxes.aabbs[q as usize])
                && filter.allows(p, q)
            {
                found.push(pair_key(p, q));
            }
        }
        slot[p as usize] = (class, open.open(class, p));
    }
    found.sort_unstable();
    tests
}

/// Above this many classes, further groups share one catch-all class that
/// pairs with every class (its pairs are still asked of the filter).
const MAX_CLASSES: usize = 32;

/// One class of a sweep: proxies of one group and static flag whose boxes
/// are open at the sweep line, and the classes it may pair with.
struct OpenClass {
    /// `None`: the catch-all class.
    key: Option<(u64, bool)>,
    partners: Vec<u32>,
    open: Vec<ProxyKey>,
}

/// The open boxes of a sweep, by class. Two classes pair when not both
/// static and the filter's groups pair; the catch-all class pairs with all.
/// Classes past `used` are spare, kept with their buffers for the next
/// sweep.
#[derive(Default)]
pub(in crate::broad_phase) struct OpenClasses {
    classes: Vec<OpenClass>,
    used: usize,
}

/// The buffers of a from-scratch sweep, kept between rebuilds so that a
/// crowd rebuilt every frame allocates nothing.
#[derive(Default)]
pub(in crate::broad_phase) struct SweepScratch {
    /// The pairs found, sorted.
    pub found: Vec<u64>,
    /// Per proxy: its class and its index in that class's open list.
    slot: Vec<(u32, u32)>,
    open: OpenClasses,
}

impl OpenClasses {
    /// Forgets every class, keeping the buffers.
    fn reset(&mut self) {
        self.used = 0;
    }

    /// The class of a proxy of `group` and `is_static`, created if new.
    fn class_of<F: PairFilter + ?Sized>(&mut self, group: u64, is_static: bool, filter: &F) -> u32 {
        let key = Some((group, is_static));
        if let Some(i) = self.classes[..self.used].iter().position(|c| c.key == key) {
            return i as u32;
        }
        if self.used >= MAX_CLASSES {
            return self.catch_all();
        }
        self.add(key, |other| match other {
            Some((g, s)) => !(is_static && s) && filter.groups_pair(group, g),
            None => true,
        })
    }

    fn catch_all(&mut self) -> u32 {
        match self.classes[..self.used]
            .iter()
            .position(|c| c.key.is_none())
        {
            Some(i) => i as u32,
            None => self.add(None, |_| true),
        }
    }

    /// Adds a class (reusing a spare one's buffers) and links it with
    /// every class `pairs` accepts (itself included).
    fn add(
        &mut self,
        key: Option<(u64, bool)>,
        pairs: impl Fn(Option<(u64, bool)>) -> bool,
    ) -> u32 {
        let new = self.used;
        if new == self.classes.len() {
            self.classes.push(OpenClass {
                key,
                partners: Vec::new(),
                open: Vec::new(),
            });
        }
        let (used, rest) = self.classes.split_at_mut(new);
        let class = &mut rest[0];
        class.key = key;
        class.partners.clear();
        class.open.clear();
        for (i, c) in used.iter_mut().enumerate() {
            if pairs(c.key) {
                c.partners.push(new as u32);
                class.partners.push(i as u32);
            }
        }
        if pairs(key) {
            class.partners.push(new as u32);
        }
        self.used += 1;
        new as u32
    }

    /// The open proxies of every class `class` pairs with.
    fn partners(&self, class: u32) -> impl Iterator<Item = ProxyKey> + '_ {
        self.classes[class as usize]
            .partners
            .iter()
            .flat_map(|&c| self.classes[c as usize].open.iter().copied())
    }

    /// Opens `p` in `class`; returns its index there.
    fn open(&mut self, class: u32, p: ProxyKey) -> u32 {
        let open = &mut self.classes[class as usize].open;
        open.push(p);
        (open.len() - 1) as u32
    }

    /// Closes the proxy at index `i` of `class`; returns the proxy moved
    /// into its place, if any.
    fn close(&mut self, class: u32, i: u32) -> Option<ProxyKey> {
        let open = &mut self.classes[class as usize].open;
        open.swap_remove(i as usize);
        open.get(i as usize).copied()
    }
}
