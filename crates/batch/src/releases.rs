//! The units running jobs give back at their predicted ends, in (predicted end, id) order,
//! kept in short sorted chunks that each know their total: EASY's shadow (the first predicted
//! end at which the idle units reach the head's size) adds up whole chunks until the one where
//! the sum crosses, so it visits about `n / CHUNK` totals and one chunk instead of every
//! release before the shadow; inserts and removals find their chunk by a binary search and
//! shift at most [`CHUNK`] entries.

use cosched_core::{JobId, Time};

/// The most entries a chunk holds; a fuller one is split in two halves.
const CHUNK: usize = 32;

/// A release: the (predicted end, job) key and the units given back.
pub(crate) type Release = ((Time, JobId), u32);

#[derive(Clone, Debug, Default)]
struct Chunk {
    /// Sorted by key, never empty.
    entries: Vec<Release>,
    /// The sum of the entries' units.
    units: u64,
}

/// The releases; see the [module docs](self).
#[derive(Clone, Debug, Default)]
pub(crate) struct Releases {
    chunks: Vec<Chunk>,
    /// Each chunk's last key, apart so that finding a chunk reads one array.
    lasts: Vec<(Time, JobId)>,
}

impl Releases {
    /// The chunk that holds `key` or where it would go: the first whose last key is at least
    /// `key` (the last chunk for a key above all); `None` when there is no chunk.
    #[inline]
    fn chunk_of(&self, key: (Time, JobId)) -> Option<usize> {
        let last = self.lasts.len().checked_sub(1)?;
        Some(self.lasts.partition_point(|&k| k < key).min(last))
    }

    /// Sets the release of `key` to `units` (inserting it if new).
    pub(crate) fn insert(&mut self, key: (Time, JobId), units: u32) {
        let Some(c) = self.chunk_of(key) else {
            self.chunks.push(Chunk {
                entries: vec![(key, units)],
                units: u64::from(units),
            });
            self.lasts.push(key);
            return;
        };
        let chunk = &mut self.chunks[c];
        match chunk.entries.binary_search_by_key(&key, |e| e.0) {
            Ok(at) => {
                let old = std::mem::replace(&mut chunk.entries[at].1, units);
                chunk.units = chunk.units - u64::from(old) + u64::from(units);
            }
            Err(at) => {
                chunk.entries.insert(at, (key, units));
                chunk.units += u64::from(units);
                self.lasts[c] = self.lasts[c].max(key);
                if chunk.entries.len() > CHUNK {
                    let tail = chunk.entries.split_off(CHUNK / 2);
                    let tail_units = tail.iter().map(|e| u64::from(e.1)).sum::<u64>();
                    chunk.units -= tail_units;
                    let head_last = chunk.entries[chunk.entries.len() - 1].0;
                    let tail_last = std::mem::replace(&mut self.lasts[c], head_last);
                    self.chunks.insert(
                        c + 1,
                        Chunk {
                            entries: tail,
                            units: tail_units,
                        },
                    );
                    self.lasts.insert(c + 1, tail_last);
                }
            }
        }
    }

    /// Whether a release of `key` is held.
    pub(crate) fn contains(&self, key: &(Time, JobId)) -> bool {
        self.chunk_of(*key).is_some_and(|c| {
            self.chunks[c]
                .entries
                .binary_search_by_key(key, |e| e.0)
                .is_ok()
        })
    }

    /// Removes the release of `key`, returning its units.
    pub(crate) fn remove(&mut self, key: &(Time, JobId)) -> Option<u32> {
        let c = self.chunk_of(*key)?;
        let chunk = &mut self.chunks[c];
        let at = chunk.entries.binary_search_by_key(key, |e| e.0).ok()?;
        let (_, units) = chunk.entries.remove(at);
        chunk.units -= u64::from(units);
        match chunk.entries.last() {
            Some(last) => self.lasts[c] = last.0,
            None => {
                self.chunks.remove(c);
                self.lasts.remove(c);
            }
        }
        Some(units)
    }

    /// Sets the units of the release of `key`, if there is one.
    pub(crate) fn set(&mut self, key: &(Time, JobId), units: u32) {
        let Some(c) = self.chunk_of(*key) else {
            return;
        };
        let chunk = &mut self.chunks[c];
        if let Ok(at) = chunk.entries.binary_search_by_key(key, |e| e.0) {
            let old = std::mem::replace(&mut chunk.entries[at].1, units);
            chunk.units = chunk.units - u64::from(old) + u64::from(units);
        }
    }

    /// The releases in key order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = Release> + '_ {
        self.chunks.iter().flat_map(|c| c.entries.iter().copied())
    }

    /// The first predicted end at which `free` plus the units released by then reach `size`,
    /// and the units available at that time (every release at it counted), over these
    /// releases and `more` (sorted by key, keys apart from these: the starts of a pass not
    /// yet applied); `None` if they never do. `size > free`.
    pub(crate) fn shadow(&self, free: u32, size: u32, more: &[Release]) -> Option<(Time, u32)> {
        let size = u64::from(size);
        let mut avail = u64::from(free);
        let (mut c, mut m) = (0, 0);
        // Whole chunks (with the extra releases before their ends) that stay short of `size`.
        while let Some(chunk) = self.chunks.get(c) {
            let last = self.lasts[c];
            let k = m + more[m..].partition_point(|e| e.0 <= last);
            let extra: u64 = more[m..k].iter().map(|e| u64::from(e.1)).sum();
            if avail + chunk.units + extra >= size {
                break;
            }
            avail += chunk.units + extra;
            c += 1;
            m = k;
        }
        // Release by release from there, both lists merged in key order, up to the first
        // release past the shadow time.
        let mut own = self.chunks[c..]
            .iter()
            .flat_map(|c| c.entries.iter())
            .peekable();
        let mut more = more[m..].iter().peekable();
        let mut time = None;
        loop {
            let next = match (own.peek(), more.peek()) {
                (Some(a), Some(b)) if a.0 < b.0 => own.next(),
                (Some(_), None) => own.next(),
                (_, Some(_)) => more.next(),
                (None, None) => None,
            };
            let Some(&((t, _), units)) = next else { break };
            if time.is_some_and(|s| t > s) {
                break;
            }
            avail += u64::from(units);
            if time.is_none() && avail >= size {
                time = Some(t);
            }
        }
        time.map(|t| (t, u32::try_from(avail).unwrap_or(u32::MAX)))
    }
}

impl FromIterator<Release> for Releases {
    fn from_iter<I: IntoIterator<Item = Release>>(iter: I) -> Self {
        let mut releases = Releases::default();
        for (key, units) in iter {
            releases.insert(key, units);
        }
        releases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shadow;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The shadow by its definition: releases walked one by one in key order.
    fn walked(free: u32, size: u32, releases: &[Release]) -> Shadow {
        let mut avail = free;
        let mut shadow: Option<Time> = None;
        for &((t, _), units) in releases {
            if shadow.is_some_and(|s| t > s) {
                break;
            }
            avail += units;
            if shadow.is_none() && avail >= size {
                shadow = Some(t);
            }
        }
        shadow.map_or(Shadow::NEVER, |time| Shadow {
            time,
            extra: avail - size,
        })
    }

    proptest! {
        /// Inserts, updates and removals keep the same releases as a sorted map, and the
        /// chunked shadow, with and without extra releases, is the walk's over them.
        #[test]
        fn matches_a_sorted_map(
            ops in prop::collection::vec((0u8..4, 0i64..60, 0u64..400, 1u32..50), 0..700),
            more in prop::collection::btree_map((0i64..70, 400u64..420), 1u32..50, 0..12),
            free in 0u32..40,
            size in 1u32..3_000,
        ) {
            let mut map = BTreeMap::new();
            let mut releases = Releases::default();
            for (op, t, id, units) in ops {
                let key = (Time(t), JobId(id));
                match op {
                    0 | 1 => {
                        map.insert(key, units);
                        releases.insert(key, units);
                    }
                    2 => prop_assert_eq!(releases.remove(&key), map.remove(&key)),
                    _ => {
                        if let Some(u) = map.get_mut(&key) {
                            *u = units;
                        }
                        releases.set(&key, units);
                    }
                }
            }
            let listed: Vec<Release> = map.iter().map(|(&k, &u)| (k, u)).collect();
            prop_assert_eq!(releases.iter().collect::<Vec<_>>(), listed.clone());
            prop_assert_eq!(releases.lasts.len(), releases.chunks.len());
            for (c, &last) in releases.chunks.iter().zip(&releases.lasts) {
                prop_assert!(!c.entries.is_empty() && c.entries.len() <= CHUNK);
                prop_assert_eq!(c.entries[c.entries.len() - 1].0, last);
                prop_assert_eq!(c.units, c.entries.iter().map(|e| u64::from(e.1)).sum::<u64>());
            }
            let size = size.max(free + 1);
            let shadow = |more: &[Release]| {
                releases
                    .shadow(free, size, more)
                    .map_or(Shadow::NEVER, |(time, avail)| Shadow { time, extra: avail - size })
            };
            prop_assert_eq!(shadow(&[]), walked(free, size, &listed));
            let more: Vec<Release> = more.into_iter().map(|((t, id), u)| ((Time(t), JobId(id)), u)).collect();
            let mut all = listed;
            all.extend_from_slice(&more);
            all.sort_unstable();
            prop_assert_eq!(shadow(&more), walked(free, size, &all));
        }
    }
}
