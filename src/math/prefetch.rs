//! Cache hints: ask the CPU to start loading memory that a computation a
//! little later will read.
//!
//! A batch over many bodies (boxes, convex pairs) reads, for each, data in
//! the body's own allocations: when the bodies have their own shapes the
//! working set leaves the cache, and each body waits on its loads in turn.
//! Issuing a prefetch for a body a few places ahead overlaps those waits
//! with the current body's arithmetic. A prefetch is a hint, not a load:
//! it never faults, whatever the address, and has no effect on any result.
//! Elsewhere than x86-64 these functions do nothing.

/// A cache line, the unit of the hints.
pub(crate) const LINE: usize = 64;

/// Hints the lines at 64-byte steps from the first byte of `items`, over
/// at most `max_bytes` bytes. (An unaligned range's last line can be left
/// out; starting from the first byte's line instead hints that one too,
/// but measured slower in the narrow phase: one more prefetch per range,
/// most of them for lines the walk never reads.)
#[inline]
pub(crate) fn prefetch_slice<T>(items: &[T], max_bytes: usize) {
    let bytes = std::mem::size_of_val(items).min(max_bytes);
    let start = items.as_ptr().cast::<u8>();
    for offset in (0..bytes).step_by(LINE) {
        prefetch_address(start.wrapping_add(offset));
    }
}

/// Hints the lines of `value`, at most `max_bytes` of them.
#[inline]
pub(crate) fn prefetch_value<T>(value: &T, max_bytes: usize) {
    prefetch_slice(std::slice::from_ref(value), max_bytes);
}

/// Hints both lines a box may straddle (24 bytes in an array of boxes: a
/// third of them cross a line).
#[inline]
pub(crate) fn prefetch_aabb(b: &crate::math::Aabb) {
    prefetch_address(std::ptr::from_ref(&b.min.x).cast::<u8>());
    prefetch_address(std::ptr::from_ref(&b.max.z).cast::<u8>());
}

/// Hints the line just past `items`: where a `Vec`'s next `push` writes
/// (in its spare capacity, or a line a reallocation leaves behind).
#[inline]
pub(crate) fn prefetch_past<T>(items: &[T]) {
    prefetch_address(items.as_ptr().wrapping_add(items.len()).cast::<u8>());
}

#[inline]
#[allow(unsafe_code)]
fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: `prefetch` is a hint, not a load: it never faults and
        // changes no program state (only what the cache holds), whatever
        // the address (here always one inside a live allocation); SSE is
        // part of every x86-64 CPU.
        // Measured worth the exception to `deny(unsafe_code)`: `--bench
        // broad_phase -- bounds_update`, `dynamic_box_read_ahead` against
        // `dynamic_box` (see `shape::lanes`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// How many items ahead [`for_each_read_ahead`] hints: the three stages of
/// a chain of dependent loads (a record, what it points at, what that
/// points at) at distances 6, 4 and 2. Descending, the first is the ring's
/// size, the last at least 1.
pub(crate) const READ_AHEAD_STAGES: [usize; 3] = [6, 4, 2];

/// Items a [`for_each_read_ahead`] holds back.
const DEPTH: usize = READ_AHEAD_STAGES[0];

const _: () = {
    let s = READ_AHEAD_STAGES;
    let mut i = 1;
    while i < s.len() {
        assert!(s[i] < s[i - 1] && s[i] >= 1);
        i += 1;
    }
};

/// Runs `each` over `items` in their order, after calling `hint(item,
/// stage)` on every item when it was `READ_AHEAD_STAGES[stage]` places
/// ahead of `each` (stages 0, 1, 2: far to near). Each stage hints every
/// item once, in item order, before the item's `each`; the first `DEPTH`
/// items get their hints back to back, before the first `each`, and the
/// last ones theirs while the ring drains. No allocation: the items in
/// flight live in an array.
pub(crate) fn for_each_read_ahead<T>(
    items: impl Iterator<Item = T>,
    mut hint: impl FnMut(&T, usize),
    mut each: impl FnMut(T),
) {
    // `ring[(head + d - 1) % DEPTH]` is the item `d` places ahead of the
    // next `each`.
    let mut ring: [Option<T>; DEPTH] = std::array::from_fn(|_| None);
    let mut head = 0;
    // The stages written out, each slot found without a division: the
    // loop over the stages with `% DEPTH` took 42 more instructions per
    // item (callgrind, the narrow phase's read-ahead).
    let [d0, d1, d2] = READ_AHEAD_STAGES;
    let mut hint_stages = |ring: &[Option<T>; DEPTH], head: usize| {
        if let Some(item) = &ring[slot(head, d0)] {
            hint(item, 0);
        }
        if let Some(item) = &ring[slot(head, d1)] {
            hint(item, 1);
        }
        if let Some(item) = &ring[slot(head, d2)] {
            hint(item, 2);
        }
    };
    for item in items {
        if let Some(oldest) = ring[head].take() {
            each(oldest);
        }
        ring[head] = Some(item);
        head = slot(head, 2);
        hint_stages(&ring, head);
    }
    for _ in 0..DEPTH {
        if let Some(oldest) = ring[head].take() {
            each(oldest);
        }
        head = slot(head, 2);
        hint_stages(&ring, head);
    }
}

/// The ring slot `d` places ahead of slot `head` (`head < DEPTH`, `1 ≤ d
/// ≤ DEPTH`), counting `head` as the first: `(head + d - 1) % DEPTH`.
#[inline(always)]
fn slot(head: usize, d: usize) -> usize {
    let i = head + d - 1;
    if i >= DEPTH { i - DEPTH } else { i }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Event {
        Hint(usize, usize),
        Each(usize),
    }

    /// Every item gets `each` once, in order; every stage hints every item
    /// once, in order, before its `each`; once the ring is full, a stage's
    /// hint comes exactly `distance - 1` items before the item's `each`.
    #[test]
    fn read_ahead_keeps_the_order_and_the_distances() {
        for n in 0..20usize {
            let log = std::cell::RefCell::new(Vec::new());
            for_each_read_ahead(
                0..n,
                |&i, stage| log.borrow_mut().push(Event::Hint(i, stage)),
                |i| log.borrow_mut().push(Event::Each(i)),
            );
            let log = log.into_inner();
            let each: Vec<usize> = log
                .iter()
                .filter_map(|e| match e {
                    Event::Each(i) => Some(*i),
                    _ => None,
                })
                .collect();
            assert_eq!(each, (0..n).collect::<Vec<_>>(), "n {n}");
            for (stage, &d) in READ_AHEAD_STAGES.iter().enumerate() {
                let hinted: Vec<usize> = log
                    .iter()
                    .filter_map(|e| match e {
                        Event::Hint(i, s) if *s == stage => Some(*i),
                        _ => None,
                    })
                    .collect();
                assert_eq!(hinted, (0..n).collect::<Vec<_>>(), "n {n}, stage {stage}");
                for i in 0..n {
                    let at = |e: Event| log.iter().position(|x| *x == e).expect("logged");
                    let (h, e) = (at(Event::Hint(i, stage)), at(Event::Each(i)));
                    assert!(h < e, "n {n}, item {i}, stage {stage}: hint after use");
                    let between = log[h..e]
                        .iter()
                        .filter(|x| matches!(x, Event::Each(_)))
                        .count();
                    if i >= DEPTH {
                        assert_eq!(between, d - 1, "n {n}, item {i}, stage {stage}");
                    }
                }
            }
        }
    }
}
