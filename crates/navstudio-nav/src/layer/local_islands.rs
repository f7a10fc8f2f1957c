//! Island ids after walls changed in a few sectors, the last step of
//! [`super::local::rebuild_walls`].
//!
//! The near sectors' local components are relabelled and joined through the windows
//! between near sectors. Outside the near sectors nothing changed, so the far sides of the
//! windows leaving them (the *exits*) can only be connected outside if they carry the same
//! old island id, and interleaved searches from them (stopping once at most one is still
//! running) tell whether they are. When every old island touching the near sectors becomes
//! exactly one new island with the same first cell inside them, every id is kept and only
//! the near sectors are rewritten; otherwise (an island split or joined, or one whose first
//! cell moved, which renumbers ids after it) islands are relabelled over the whole map.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::NavLayer;
use crate::grid::GridSpec;
use crate::islands::{IslandField, MIXED, label_sector};

const NONE: u32 = u32::MAX;

/// Nodes each interleaved island search expands per turn.
const SEARCH_STEP: usize = 8;

/// How [`rebuild_walls`] brought the island ids up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IslandUpdate {
    /// Every id kept; only the near sectors' ids rewritten.
    Local,
    /// Islands split, joined or renumbered: relabelled over the whole map.
    Relabelled,
}

/// Union-find over near-sector components, with path halving.
struct UnionFind(Vec<u32>);

impl UnionFind {
    fn find(&mut self, mut a: u32) -> u32 {
        while self.0[a as usize] != a {
            self.0[a as usize] = self.0[self.0[a as usize] as usize];
            a = self.0[a as usize];
        }
        a
    }
    fn union(&mut self, a: u32, b: u32) -> u32 {
        let (ra, rb) = (self.find(a), self.find(b));
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.0[hi as usize] = lo;
        lo
    }
}

/// One interleaved island search: its component (a union-find element) and its queue.
struct Front {
    unit: u32,
    queue: VecDeque<u32>,
}

/// The near sectors' components ("units"): per near sector its cell labels (`0` = wall,
/// `l` = unit `base[i] + l − 1`), and each unit's first cell `(y, x)`.
struct Units<'a> {
    spec: GridSpec,
    n_list: &'a [u32],
    labels: Vec<Vec<u32>>,
    base: Vec<u32>,
    first: Vec<(u32, u32)>,
}

impl Units<'_> {
    fn at(&self, x: u32, y: u32) -> Option<u32> {
        let s = self.spec.sector_of(x, y);
        let idx = self.n_list.binary_search(&s).ok()?;
        let (x0, y0, w, _) = self.spec.sector_rect(s);
        let l = self.labels[idx][((y - y0) * w + (x - x0)) as usize];
        (l != 0).then(|| self.base[idx] + l - 1)
    }
}

/// What the island searches found: exits `(old id, far node, near unit)` sorted, for split
/// old ids the unit of the search still running when they stopped, and every node visited.
struct Searches {
    exits: Vec<(u32, u32, u32)>,
    remainder: HashMap<u32, Option<u32>>,
    visited: Vec<u32>,
    visited_nodes: Vec<u32>,
}

/// Brings the island ids up to date after the near sectors (`n_list`, ascending; `in_n` per
/// sector) changed; nodes and graph are already current, `region` is the range of new node
/// ids holding every near node.
pub(super) fn update_islands(
    layer: &mut NavLayer,
    n_list: &[u32],
    in_n: &[bool],
    region: std::ops::Range<usize>,
) -> IslandUpdate {
    let spec = layer.cost.spec;
    let mut units = Units {
        spec,
        n_list,
        labels: Vec::with_capacity(n_list.len()),
        base: Vec::with_capacity(n_list.len()),
        first: Vec::new(),
    };
    let mut tile = Vec::new();
    for &s in n_list {
        layer.cost.sector_cells(s, &mut tile);
        let (x0, y0, w, _) = spec.sector_rect(s);
        let (k, lab) = label_sector(w, &tile);
        let start = units.first.len();
        units.base.push(start as u32);
        units.first.resize(start + k as usize, (NONE, NONE));
        // Labels are numbered by first cell, so label l first appears after l − 1.
        let mut next = 1;
        for (i, &l) in lab.iter().enumerate() {
            if next > k {
                break;
            }
            if l == next {
                units.first[start + l as usize - 1] = (y0 + i as u32 / w, x0 + i as u32 % w);
                next += 1;
            }
        }
        units.labels.push(lab);
    }
    let mut uf = UnionFind((0..units.first.len() as u32).collect());
    let nodes = &layer.nodes;
    // Windows between two near sectors join their sides' units.
    for pair in nodes[region].chunks_exact(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if in_n[a.sector as usize]
            && in_n[b.sector as usize]
            && let (Some(ua), Some(ub)) = (
                units.at(a.center().0, a.center().1),
                units.at(b.center().0, b.center().1),
            )
        {
            uf.union(ua, ub);
        }
    }
    let mut found = Searches {
        exits: Vec::new(),
        remainder: HashMap::new(),
        visited: Vec::new(),
        visited_nodes: Vec::new(),
    };
    for &s in n_list {
        for &m in layer.graph.nodes_of_sector(s) {
            let far = m ^ 1;
            let f = &nodes[far as usize];
            if !in_n[f.sector as usize] {
                let c = nodes[m as usize].center();
                if let Some(u) = units.at(c.0, c.1) {
                    found.exits.push((f.island, far, u));
                }
            }
        }
    }
    found.exits.sort_unstable();
    let mut start = 0;
    while start < found.exits.len() {
        let id = found.exits[start].0;
        let end = start + found.exits[start..].partition_point(|e| e.0 == id);
        let r0 = uf.find(found.exits[start].2);
        if found.exits[start..end].iter().any(|e| uf.find(e.2) != r0) {
            if found.visited.is_empty() {
                found.visited = vec![NONE; nodes.len()];
            }
            let rest = join_outside(layer, in_n, &mut uf, start..end, &mut found);
            let r = uf.find(found.exits[start].2);
            if found.exits[start..end].iter().any(|e| uf.find(e.2) != r) {
                found.remainder.insert(id, rest);
            }
        }
        start = end;
    }

    let old_first = old_near_firsts(layer, n_list);
    if let Some(unit_id) = local_ids(&mut uf, &found.exits, &units.first, &old_first) {
        write_near_ids(layer, &units, &unit_id);
        IslandUpdate::Local
    } else {
        relabel(layer, in_n, &units, &mut uf, &found, &old_first);
        IslandUpdate::Relabelled
    }
}

/// Interleaved searches outside the near sectors from the exits `range` of one old island,
/// one per distinct unit root; searches that meet are joined in `uf`. Stops when at most one
/// search is still running (the exhausted ones are cut off from it) and returns its unit.
fn join_outside(
    layer: &NavLayer,
    in_n: &[bool],
    uf: &mut UnionFind,
    range: std::ops::Range<usize>,
    found: &mut Searches,
) -> Option<u32> {
    let (nodes, graph) = (&layer.nodes, &layer.graph);
    let visited = &mut found.visited;
    let mut fronts: Vec<Front> = Vec::new();
    for &(_, far, unit) in &found.exits[range] {
        visited[far as usize] = unit;
        found.visited_nodes.push(far);
        let r = uf.find(unit);
        match fronts.iter().position(|f| f.unit == r) {
            Some(i) => fronts[i].queue.push_back(far),
            None => fronts.push(Front {
                unit: r,
                queue: VecDeque::from([far]),
            }),
        }
    }
    loop {
        let mut running = fronts.iter().filter(|f| !f.queue.is_empty());
        match (running.next(), running.next()) {
            (None, _) => return None,
            (Some(f), None) => return Some(f.unit),
            _ => {}
        }
        for fi in 0..fronts.len() {
            for _ in 0..SEARCH_STEP {
                let Some(x) = fronts[fi].queue.pop_front() else {
                    break;
                };
                for (y, _) in graph.edges(x) {
                    if in_n[nodes[y as usize].sector as usize] {
                        continue;
                    }
                    let v = visited[y as usize];
                    if v == NONE {
                        visited[y as usize] = fronts[fi].unit;
                        found.visited_nodes.push(y);
                        fronts[fi].queue.push_back(y);
                        continue;
                    }
                    let (a, b) = (uf.find(v), uf.find(fronts[fi].unit));
                    if a == b {
                        continue;
                    }
                    // Two searches met: one component outside; merge their queues.
                    let root = uf.union(a, b);
                    let mut moved = VecDeque::new();
                    for (fj, f) in fronts.iter_mut().enumerate() {
                        if fj != fi && uf.find(f.unit) == root {
                            moved.append(&mut f.queue);
                            f.unit = root;
                        }
                    }
                    fronts[fi].unit = root;
                    fronts[fi].queue.append(&mut moved);
                }
            }
        }
    }
}

/// First cell `(y, x)` among the near cells of every old island present in them.
fn old_near_firsts(layer: &NavLayer, n_list: &[u32]) -> HashMap<u32, (u32, u32)> {
    let spec = layer.cost.spec;
    let islands = &layer.islands;
    let mut old_first: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut note = |id: u32, cell: (u32, u32)| {
        if id != 0 {
            let e = old_first.entry(id).or_insert(cell);
            *e = (*e).min(cell);
        }
    };
    for &s in n_list {
        let (x0, y0, w, _) = spec.sector_rect(s);
        match islands.sector_island.get(s as usize) {
            Some(&MIXED) => {
                if let Ok(i) = islands.fields.binary_search_by_key(&s, |(sec, _)| *sec) {
                    for (c, id) in islands.fields[i].1.iter().enumerate() {
                        note(id, (y0 + c as u32 / w, x0 + c as u32 % w));
                    }
                }
            }
            Some(&id) => note(id, (y0, x0)),
            None => {}
        }
    }
    old_first
}

/// New island id of every unit when no island split, joined or got a new first cell (each
/// old island touching the near sectors is exactly one new island with the same first cell
/// among the near cells, and so keeps its id); `None` otherwise.
fn local_ids(
    uf: &mut UnionFind,
    exits: &[(u32, u32, u32)],
    unit_first: &[(u32, u32)],
    old_first: &HashMap<u32, (u32, u32)>,
) -> Option<Vec<u32>> {
    // Each old id's exits in one new island, each new island holding at most one old id.
    let mut root_of_id: HashMap<u32, u32> = HashMap::new();
    for &(id, _, unit) in exits {
        let r = uf.find(unit);
        if *root_of_id.entry(id).or_insert(r) != r {
            return None;
        }
    }
    let mut id_of_root: HashMap<u32, u32> = HashMap::new();
    for (&id, &r) in &root_of_id {
        if id_of_root.insert(r, id).is_some() {
            return None;
        }
    }
    let mut root_first: HashMap<u32, (u32, u32)> = HashMap::new();
    for (u, &cell) in unit_first.iter().enumerate() {
        let r = uf.find(u as u32);
        let e = root_first.entry(r).or_insert(cell);
        *e = (*e).min(cell);
    }
    // Islands wholly inside the near sectors are matched by their first cell.
    let mut inside: HashMap<(u32, u32), u32> = old_first
        .iter()
        .filter(|(id, _)| !root_of_id.contains_key(id))
        .map(|(&id, &cell)| (cell, id))
        .collect();
    let mut id_of: HashMap<u32, u32> = HashMap::new();
    for (&r, &cell) in &root_first {
        let id = match id_of_root.get(&r) {
            Some(&id) if old_first.get(&id) == Some(&cell) => id,
            Some(_) => return None,
            None => inside.remove(&cell)?,
        };
        id_of.insert(r, id);
    }
    if !inside.is_empty() {
        return None;
    }
    (0..unit_first.len() as u32)
        .map(|u| id_of.get(&uf.find(u)).copied())
        .collect()
}

/// A sector outside the near ones holding part of a split island: its cell labels and, per
/// label, the new island (union-find root) an exhausted search found it in (or `NONE`).
struct SplitSector {
    labels: Vec<u32>,
    root: Vec<u32>,
}

/// Renumbers every island after a split, join or first-cell change, in
/// `O(sectors + cells of mixed sectors)`: each new island is a class — a union-find root of
/// units (with the outside parts of the old islands whose exits it holds) or an untouched old
/// island — numbered by its first cell, found in one pass over the old ids.
fn relabel(
    layer: &mut NavLayer,
    in_n: &[bool],
    units: &Units<'_>,
    uf: &mut UnionFind,
    found: &Searches,
    old_first: &HashMap<u32, (u32, u32)>,
) {
    let spec = layer.cost.spec;
    let unit_count = units.first.len() as u32;
    let old_count = layer.islands.count as usize;
    // Class per old id: untouched ids their own (unit_count + id), touched ids the root of
    // their exits (of the search left running for a split one); ids wholly inside the near
    // sectors have no cell left outside them.
    let mut class_of_old: Vec<u32> = (0..=old_count as u32).map(|k| unit_count + k).collect();
    class_of_old[0] = NONE;
    for &id in old_first.keys() {
        if let Some(c) = class_of_old.get_mut(id as usize) {
            *c = NONE;
        }
    }
    for &(id, _, unit) in &found.exits {
        let root = match found.remainder.get(&id) {
            Some(rest) => rest.map_or(NONE, |u| uf.find(u)),
            None => uf.find(unit),
        };
        if let Some(c) = class_of_old.get_mut(id as usize) {
            *c = root;
        }
    }
    // Outside components of split ids that an exhausted search walked, per sector label.
    let mut split: HashMap<u32, SplitSector> = HashMap::new();
    let mut tile = Vec::new();
    for &x in &found.visited_nodes {
        let n = layer.nodes[x as usize];
        if !found.remainder.contains_key(&n.island) {
            continue;
        }
        let e = split.entry(n.sector).or_insert_with(|| {
            layer.cost.sector_cells(n.sector, &mut tile);
            let (_, _, w, _) = spec.sector_rect(n.sector);
            let (k, labels) = label_sector(w, &tile);
            SplitSector {
                labels,
                root: vec![NONE; k as usize + 1],
            }
        });
        let (x0, y0, w, _) = spec.sector_rect(n.sector);
        let l = e.labels[((n.center().1 - y0) * w + (n.center().0 - x0)) as usize];
        e.root[l as usize] = uf.find(found.visited[x as usize]);
    }
    // Class of cell `c` (old id `id`) of a sector holding split components.
    let split_class = |e: &SplitSector, c: usize, id: u32| -> u32 {
        if id == 0 {
            return NONE;
        }
        let r = e.root[e.labels[c] as usize];
        if r == NONE {
            class_of_old.get(id as usize).copied().unwrap_or(NONE)
        } else {
            r
        }
    };
    let class_of = |id: u32| class_of_old.get(id as usize).copied().unwrap_or(NONE);

    // First cell of every class.
    let classes = unit_count as usize + old_count + 1;
    let mut first = vec![(NONE, NONE); classes];
    for (u, &cell) in units.first.iter().enumerate() {
        let r = uf.find(u as u32) as usize;
        first[r] = first[r].min(cell);
    }
    let mut note = |k: u32, cell: (u32, u32)| {
        if let Some(f) = first.get_mut(k as usize) {
            *f = (*f).min(cell);
        }
    };
    let islands = &layer.islands;
    let mut fi = 0;
    for s in 0..spec.sector_count() as u32 {
        let id = islands.sector_island[s as usize];
        if in_n[s as usize] {
            continue;
        }
        let (x0, y0, w, _) = spec.sector_rect(s);
        let cell = |c: usize| (y0 + c as u32 / w, x0 + c as u32 % w);
        if id != MIXED {
            let k = match split.get(&s) {
                Some(e) => split_class(e, 0, id),
                None => class_of(id),
            };
            note(k, (y0, x0));
            continue;
        }
        while fi < islands.fields.len() && islands.fields[fi].0 < s {
            fi += 1;
        }
        let Some((_, field)) = islands.fields.get(fi).filter(|f| f.0 == s) else {
            continue;
        };
        if let Some(e) = split.get(&s) {
            for (c, id) in field.iter().enumerate() {
                note(split_class(e, c, id), cell(c));
            }
        } else {
            // Only the first cell of a run of one id can be that id's first cell here.
            let mut prev = 0;
            for (c, id) in field.iter().enumerate() {
                if id != prev {
                    prev = id;
                    note(class_of(id), cell(c));
                }
            }
        }
    }
    let mut order: Vec<u32> = (0..classes as u32)
        .filter(|&k| first[k as usize].0 != NONE)
        .collect();
    order.sort_unstable_by_key(|&k| first[k as usize]);
    let mut new_id = vec![0_u32; classes];
    for (i, &k) in order.iter().enumerate() {
        new_id[k as usize] = i as u32 + 1;
    }
    let id_of_class = |k: u32| if k == NONE { 0 } else { new_id[k as usize] };
    let new_of_old: Vec<u32> = class_of_old.iter().map(|&k| id_of_class(k)).collect();
    let renumber = |id: u32| new_of_old.get(id as usize).copied().unwrap_or(0);

    // Rewrite the ids outside the near sectors, then inside them.
    let islands = Arc::make_mut(&mut layer.islands);
    let mut fi = 0;
    for s in 0..spec.sector_count() as u32 {
        let id = islands.sector_island[s as usize];
        if in_n[s as usize] {
            continue;
        }
        let e = split.get(&s);
        if id != MIXED {
            islands.sector_island[s as usize] = match e {
                Some(e) => id_of_class(split_class(e, 0, id)),
                None => renumber(id),
            };
            continue;
        }
        while fi < islands.fields.len() && islands.fields[fi].0 < s {
            fi += 1;
        }
        if let Some((_, field)) = islands.fields.get_mut(fi).filter(|f| f.0 == s) {
            *field = match e {
                Some(e) => field.map(|c, id| id_of_class(split_class(e, c, id))),
                None => field.map(|_, id| renumber(id)),
            };
        }
    }
    islands.count = order.len() as u32;
    let mut in_split = vec![false; if split.is_empty() { 0 } else { in_n.len() }];
    for &s in split.keys() {
        in_split[s as usize] = true;
    }
    for n in Arc::make_mut(&mut layer.nodes) {
        if !in_n[n.sector as usize] {
            n.island = if in_split.get(n.sector as usize) == Some(&true) {
                NONE
            } else {
                renumber(n.island)
            };
        }
    }
    let unit_id: Vec<u32> = (0..unit_count).map(|u| id_of_class(uf.find(u))).collect();
    write_near_ids(layer, units, &unit_id);
    let islands = &layer.islands;
    for n in Arc::make_mut(&mut layer.nodes) {
        if n.island == NONE {
            n.island = islands.island_at(n.center().0, n.center().1);
        }
    }
}

/// Rewrites the near sectors' island ids (`unit_id` per unit) and their nodes' ids.
fn write_near_ids(layer: &mut NavLayer, units: &Units<'_>, unit_id: &[u32]) {
    let n_list = units.n_list;
    let islands = Arc::make_mut(&mut layer.islands);
    let mut near_fields: Vec<(u32, IslandField)> = Vec::new();
    for (idx, &s) in n_list.iter().enumerate() {
        let ids: Box<[u32]> = units.labels[idx]
            .iter()
            .map(|&l| {
                if l == 0 {
                    0
                } else {
                    unit_id[(units.base[idx] + l - 1) as usize]
                }
            })
            .collect();
        let first = ids.first().copied().unwrap_or(0);
        if ids.iter().all(|&id| id == first) {
            islands.sector_island[s as usize] = first;
        } else {
            islands.sector_island[s as usize] = MIXED;
            near_fields.push((s, IslandField::from_ids(&ids)));
        }
    }
    // One splice over the near sectors' span of the (sector-sorted) field list.
    let (Some(&amin), Some(&amax)) = (n_list.first(), n_list.last()) else {
        return;
    };
    let lo = islands.fields.partition_point(|(s, _)| *s < amin);
    let hi = islands.fields.partition_point(|(s, _)| *s <= amax);
    let mut span: Vec<(u32, IslandField)> = Vec::with_capacity(hi - lo + near_fields.len());
    let mut near = near_fields.into_iter().peekable();
    for (s, field) in islands.fields.drain(lo..hi) {
        while let Some(f) = near.next_if(|f| f.0 < s) {
            span.push(f);
        }
        if n_list.binary_search(&s).is_err() {
            span.push((s, field));
        }
    }
    span.extend(near);
    islands.fields.splice(lo..lo, span);

    for &s in n_list {
        for &m in layer.graph.nodes_of_sector(s) {
            let n = &mut Arc::make_mut(&mut layer.nodes)[m as usize];
            n.island = units
                .at(n.center().0, n.center().1)
                .map_or(0, |u| unit_id[u as usize]);
        }
    }
}
