//! Sorting plans and adjacency by integer keys, through one instantiation of the standard
//! library's unstable sort (on `u128`).
//!
//! Each `sort_unstable_by_key` with its own closure is its own copy of the sort: five of them
//! weighed about 35 KB of the npm module's code at `opt-level = 3` (issue 26). A key packed with
//! the item it sorts (key in the high half, item in the low) sorts the same way and shares the
//! one copy; the item breaking ties also makes the order total, so it is the same on every run.
//!
//! Complexity: O(n log n) time, O(n) scratch (reused by the caller).

use alloc::vec::Vec;

/// Up to this many items are sorted in place, by insertion.
const SMALL: usize = 8;

/// Sorts `items` by `key`, ties by the item itself; `scratch` is working space.
pub fn by_key(items: &mut [usize], scratch: &mut Vec<u128>, key: impl Fn(usize) -> u64) {
    // A plan node is mostly fed by one edge, a join by a few: insertion, without packing, costs
    // less there (a few instructions inlined per caller).
    if items.len() <= SMALL {
        for i in 1..items.len() {
            let x = items[i];
            let k = (key(x), x);
            let mut j = i;
            while j > 0 && (key(items[j - 1]), items[j - 1]) > k {
                items[j] = items[j - 1];
                j -= 1;
            }
            items[j] = x;
        }
        return;
    }
    scratch.clear();
    scratch.extend(items.iter().map(|&x| ((key(x) as u128) << 64) | x as u128));
    packed(scratch);
    for (x, &k) in items.iter_mut().zip(scratch.iter()) {
        *x = k as u64 as usize;
    }
}

/// Sorts integers ascending: the one copy of the sort every caller shares.
pub fn packed(keys: &mut [u128]) {
    keys.sort_unstable();
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    #[test]
    fn sorts_by_key_then_item() {
        let (mut items, mut scratch) = (alloc::vec![7, 3, 5, 4], Vec::new());
        super::by_key(&mut items, &mut scratch, |x| (x % 3) as u64);
        assert_eq!(items, [3, 4, 7, 5]);
        // Past the insertion sort's size: the packed sort orders the same way.
        let mut many: Vec<usize> = (0..40).rev().collect();
        super::by_key(&mut many, &mut scratch, |x| (x % 3) as u64);
        let mut want: Vec<usize> = (0..40).collect();
        want.sort_by_key(|&x| (x % 3, x));
        assert_eq!(many, want);
    }
}
