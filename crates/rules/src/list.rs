//! A fixed-capacity list, so that generating legal actions never allocates.

/// Up to `N` actions on the stack.
#[derive(Clone, Copy, Debug)]
pub struct ActionList<A: Copy + Default, const N: usize> {
    items: [A; N],
    len: u8,
}

impl<A: Copy + Default, const N: usize> ActionList<A, N> {
    /// An empty list.
    #[inline]
    pub fn new() -> Self {
        ActionList {
            items: [A::default(); N],
            len: 0,
        }
    }

    /// Appends `action`. The games size their lists for their largest legal set, so this
    /// never overflows; it panics if a caller breaks that.
    #[inline]
    pub fn push(&mut self, action: A) {
        self.items[self.len as usize] = action;
        self.len += 1;
    }
}

impl<A: Copy + Default, const N: usize> Default for ActionList<A, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Copy + Default, const N: usize> std::ops::Deref for ActionList<A, N> {
    type Target = [A];
    #[inline]
    fn deref(&self) -> &[A] {
        &self.items[..self.len as usize]
    }
}

impl<A: Copy + Default, const N: usize> IntoIterator for ActionList<A, N> {
    type Item = A;
    type IntoIter = std::iter::Take<std::array::IntoIter<A, N>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(self.len as usize)
    }
}
