//! Box endpoints on one axis and the ordering the lists are sorted by.

use crate::math::ordered_bits;

/// One end of a box's projection on an axis: its coordinate and, packed in a
/// `u32`, the proxy it belongs to and whether it is the max end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Endpoint {
    /// Coordinate on the axis.
    pub value: f32,
    data: u32,
}

impl Endpoint {
    /// An endpoint of `proxy` (proxy ids must be below 2^31).
    #[inline]
    pub fn new(value: f32, proxy: u32, is_max: bool) -> Self {
        Self {
            value,
            data: (proxy << 1) | u32::from(is_max),
        }
    }

    /// The proxy this endpoint belongs to.
    #[inline]
    pub fn proxy(self) -> u32 {
        self.data >> 1
    }

    /// Whether this is the max end of the interval.
    #[inline]
    pub fn is_max(self) -> bool {
        self.data & 1 != 0
    }

    /// Slot of this endpoint in a proxy's `[u32; 6]` position table.
    #[inline]
    pub fn slot(self, axis: usize) -> usize {
        axis * 2 + (self.data & 1) as usize
    }

    /// A key whose integer order is [`before`](Self::before)'s order (ties
    /// between two mins or two maxes at one value aside): the value's bits
    /// made monotonic (`-0.0` counted as `0.0`), then min before max.
    /// Sorting by it is a plain integer sort.
    #[inline]
    pub fn sort_key(self) -> u64 {
        (u64::from(ordered_bits(self.value)) << 1) | u64::from(self.is_max())
    }

    /// The sort order: by value, and at equal values a min before a max, so
    /// that touching intervals count as overlapping (closed intervals).
    #[inline]
    pub fn before(self, other: Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max() && other.is_max())
    }
}

#[cfg(test)]
mod tests {
    use super::Endpoint;

    #[test]
    fn sort_key_orders_as_before() {
        let values = [
            -3.5e30, -1.0, -1e-40, -0.0, 0.0, 1e-40, 0.5, 1.0, 2.0, 3.5e30,
        ];
        let ends: Vec<Endpoint> = values
            .iter()
            .enumerate()
            .flat_map(|(i, &v)| [false, true].map(move |m| Endpoint::new(v, i as u32, m)))
            .collect();
        for &a in &ends {
            for &b in &ends {
                if a.before(b) {
                    assert!(a.sort_key() < b.sort_key(), "{a:?} before {b:?}");
                }
                if !a.before(b) && !b.before(a) {
                    assert_eq!(a.sort_key(), b.sort_key(), "{a:?} ties {b:?}");
                }
            }
        }
    }
}
