//! Box endpoints on one axis and the ordering the lists are sorted by.

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

    /// The sort order: by value, and at equal values a min before a max, so
    /// that touching intervals count as overlapping (closed intervals).
    #[inline]
    pub fn before(self, other: Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max() && other.is_max())
    }
}
