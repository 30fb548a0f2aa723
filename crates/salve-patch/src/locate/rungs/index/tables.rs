//! The lookup tables of the line index: a table of every line by hash (chains of lines), and a
//! compact table of only the keys a file's hunks will look up.

/// The end of a chain.
pub(super) const NIL: u32 = u32::MAX;

/// 16 bytes: `uses` is the occurrence count plus one, 0 for an empty slot (a primed key that
/// never occurs has `uses == 1`).
#[derive(Clone, Copy)]
pub(super) struct Slot {
    hash: u64,
    uses: u32,
    pub(super) head: u32,
}

impl Slot {
    fn used(&self) -> bool {
        self.uses > 0
    }

    pub(super) fn count(&self) -> u32 {
        self.uses.saturating_sub(1)
    }
}

/// Open-addressing table from a line hash to its occurrence count and the chain of lines
/// carrying it (ascending, linked through `next`).
pub(super) struct Table {
    slots: Vec<Slot>,
    pub(super) next: Vec<u32>,
    mask: usize,
}

impl Table {
    /// A table of `keys` (or of every line when `keys` is `None`) over the lines' `hashes`.
    pub(super) fn build(hashes: &[u64], keys: Option<&[u64]>) -> Table {
        let distinct = keys.map_or(hashes.len(), <[u64]>::len);
        // Load factor at most 3/4.
        let cap = (distinct + distinct / 3 + 1).next_power_of_two().max(16);
        let empty = Slot {
            hash: 0,
            uses: 0,
            head: NIL,
        };
        let mut t = Table {
            slots: vec![empty; cap],
            next: vec![NIL; hashes.len()],
            mask: cap - 1,
        };
        if let Some(keys) = keys {
            for &k in keys {
                let b = t.probe(k);
                t.slots[b].hash = k;
                t.slots[b].uses = 1;
            }
        }
        // Backwards, so every chain lists its lines in ascending order.
        for i in (0..hashes.len()).rev() {
            let h = hashes[i];
            let b = t.probe(h);
            let s = &mut t.slots[b];
            if !s.used() {
                if keys.is_some() {
                    continue;
                }
                s.hash = h;
                s.uses = 1;
            }
            t.next[i] = s.head;
            s.head = i as u32;
            s.uses += 1;
        }
        t
    }

    /// The slot holding `h`, or the empty slot where it would go.
    fn probe(&self, h: u64) -> usize {
        let mut b = (h as usize) & self.mask;
        loop {
            let s = &self.slots[b];
            if !s.used() || s.hash == h {
                return b;
            }
            b = (b + 1) & self.mask;
        }
    }

    pub(super) fn get(&self, h: u64) -> Option<&Slot> {
        let s = &self.slots[self.probe(h)];
        s.used().then_some(s)
    }
}

/// The lines carrying each of a known set of keys, in one flat array: for a hunk's lines, a
/// pass over the file fills it and nothing is kept per file line.
pub(super) struct Primed {
    slots: Vec<KeySlot>,
    lines: Vec<u32>,
    mask: usize,
}

/// One key: its hash, and where its lines sit in [`Primed::lines`].
#[derive(Clone, Copy)]
struct KeySlot {
    hash: u64,
    used: bool,
    /// The key's lines were collected; otherwise the key is too common to be worth it.
    indexed: bool,
    start: u32,
    count: u32,
}

/// What [`Primed`] knows of a hash.
pub(super) enum Known<'p> {
    Lines(&'p [u32]),
    /// A key whose lines were not collected (see [`COMMON_LEN`]).
    Unindexed,
}

/// Raw keys this short once trimmed (blank lines, braces, `**`) occur all over most files:
/// never the rarest line of a pattern, so their lines are not collected, which keeps most of a
/// file's lines from being hashed at all.
pub(super) const COMMON_LEN: usize = 4;

impl Primed {
    /// `keys` (distinct) looked up in `lines`: `(line, hash)` pairs in ascending line order. Lines
    /// whose hash is not a key are skipped; callers may leave out lines that surely are not.
    /// `unindexed` keys are known but their lines not collected.
    pub(super) fn build(
        keys: &[u64],
        unindexed: &[u64],
        lines: impl Iterator<Item = (usize, u64)>,
    ) -> Primed {
        let all = keys.len() + unindexed.len();
        let cap = (all + all / 3 + 1).next_power_of_two().max(16);
        let empty = KeySlot {
            hash: 0,
            used: false,
            indexed: false,
            start: 0,
            count: 0,
        };
        let mut p = Primed {
            slots: vec![empty; cap],
            lines: Vec::new(),
            mask: cap - 1,
        };
        for (&k, indexed) in keys
            .iter()
            .map(|k| (k, true))
            .chain(unindexed.iter().map(|k| (k, false)))
        {
            let b = p.probe(k);
            p.slots[b].hash = k;
            p.slots[b].used = true;
            p.slots[b].indexed = indexed;
        }
        let mut hits: Vec<(u32, u32)> = Vec::with_capacity(lines.size_hint().0);
        for (i, h) in lines {
            let b = p.probe(h);
            if p.slots[b].indexed {
                p.slots[b].count += 1;
                hits.push((b as u32, i as u32));
            }
        }
        let mut next = 0u32;
        for s in &mut p.slots {
            s.start = next;
            next += s.count;
        }
        let mut fill: Vec<u32> = p.slots.iter().map(|s| s.start).collect();
        p.lines = vec![0; next as usize];
        // `hits` is in line order, so each key's lines come out ascending.
        for (b, i) in hits {
            let at = &mut fill[b as usize];
            p.lines[*at as usize] = i;
            *at += 1;
        }
        p
    }

    fn probe(&self, h: u64) -> usize {
        let mut b = (h as usize) & self.mask;
        loop {
            let s = &self.slots[b];
            if !s.used || s.hash == h {
                return b;
            }
            b = (b + 1) & self.mask;
        }
    }

    /// What is known of key `h`; `None` when `h` is not a key.
    pub(super) fn get(&self, h: u64) -> Option<Known<'_>> {
        let s = &self.slots[self.probe(h)];
        match (s.used, s.indexed) {
            (false, _) => None,
            (true, false) => Some(Known::Unindexed),
            (true, true) => Some(Known::Lines(
                &self.lines[s.start as usize..(s.start + s.count) as usize],
            )),
        }
    }
}

/// Every line on a slot's chain, ascending.
pub(super) fn chain(t: &Table, slot: &Slot) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur = slot.head;
    while cur != NIL {
        out.push(cur as usize);
        cur = t.next[cur as usize];
    }
    out
}
