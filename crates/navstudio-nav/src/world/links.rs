//! Links at run time: the world's link list, each movement type's link end nodes (built
//! with the type's search layout, see [`crate::links::overlay`]), reachability across links,
//! and run-time link changes, which wait for [`NavWorld::rebuild`] like cost changes do.

use crate::vocab::MoveType;
use std::sync::Arc;

use super::{NavWorld, PathId};
use crate::links::overlay::LayerLinks;
use crate::links::reach::LinkReach;
use crate::links::{LinkError, NavLink, validate_links};

/// Where an agent on a path stands at a link it must take now (see [`NavWorld::link_at`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkStep {
    /// The link's id.
    pub id: u32,
    /// The cell to arrive at: the centre of the link's other end.
    pub exit: (u32, u32),
    /// The exit end's cells (an agent may arrive anywhere on them).
    pub exit_area: crate::links::LinkEnd,
    /// The link's kind (how to traverse it).
    pub kind: crate::links::LinkKind,
    /// Its width in metres.
    pub width_m: f32,
}

/// The world's links and what is derived from them.
#[derive(Debug, Default)]
pub(super) struct WorldLinks {
    /// The links requests use now.
    pub(super) links: Vec<NavLink>,
    /// The links after the changes waiting for [`NavWorld::rebuild`], if any.
    pub(super) pending: Option<Vec<NavLink>>,
    /// Per movement type, its link end nodes, built with its search layout.
    pub(super) layers: Vec<Option<Arc<LayerLinks>>>,
    /// Per movement type, reachability across its links.
    pub(super) reach: Vec<LinkReach>,
}

impl NavWorld {
    /// The links requests use now (changes wait for [`Self::rebuild`]).
    #[must_use]
    pub fn links(&self) -> &[NavLink] {
        &self.links.links
    }

    /// Replaces every link at once, effective now (at load time; at run time use
    /// [`Self::add_link`] and the others, which go through [`Self::rebuild`]). Drops the
    /// search layouts and tables of every movement type; live paths keep their routes until
    /// re-planned.
    ///
    /// # Errors
    /// [`LinkError`] for a link off the map, a value out of range or a repeated id.
    pub fn set_links(&mut self, links: Vec<NavLink>) -> Result<(), LinkError> {
        let spec = self.nav.spec;
        validate_links(&links, spec.width, spec.height)?;
        self.links.links = links;
        self.links.pending = None;
        self.links_changed();
        self.goal_cache.clear();
        Ok(())
    }

    /// The links after the changes waiting for the rebuild queue.
    fn next_links(&mut self) -> &mut Vec<NavLink> {
        let now = &self.links.links;
        self.links.pending.get_or_insert_with(|| now.clone())
    }

    /// Adds a link at run time; requests take it after [`Self::rebuild`].
    ///
    /// # Errors
    /// As [`Self::set_links`].
    pub fn add_link(&mut self, link: NavLink) -> Result<(), LinkError> {
        let spec = self.nav.spec;
        link.validate(spec.width, spec.height)?;
        let next = self.next_links();
        if next.iter().any(|l| l.id == link.id) {
            return Err(LinkError::DuplicateId(link.id));
        }
        next.push(link);
        Ok(())
    }

    /// Replaces every link at run time (an editor's document changed them); requests take
    /// them after [`Self::rebuild`], which re-plans the live paths.
    ///
    /// # Errors
    /// As [`Self::set_links`]; nothing changes then.
    pub fn replace_links(&mut self, links: Vec<NavLink>) -> Result<(), LinkError> {
        let spec = self.nav.spec;
        validate_links(&links, spec.width, spec.height)?;
        *self.next_links() = links;
        Ok(())
    }

    /// Removes link `id` at run time; requests stop taking it after [`Self::rebuild`].
    ///
    /// # Errors
    /// [`LinkError::Unknown`].
    pub fn remove_link(&mut self, id: u32) -> Result<(), LinkError> {
        let next = self.next_links();
        let at = next
            .iter()
            .position(|l| l.id == id)
            .ok_or(LinkError::Unknown(id))?;
        next.remove(at);
        Ok(())
    }

    /// Enables or disables link `id` at run time (a bridge destroyed, a gate opened); takes
    /// effect after [`Self::rebuild`].
    ///
    /// # Errors
    /// [`LinkError::Unknown`].
    pub fn set_link_enabled(&mut self, id: u32, enabled: bool) -> Result<(), LinkError> {
        let next = self.next_links();
        let link = next
            .iter_mut()
            .find(|l| l.id == id)
            .ok_or(LinkError::Unknown(id))?;
        link.enabled = enabled;
        Ok(())
    }

    /// Whether link changes wait for the rebuild queue.
    pub(super) fn links_pending(&self) -> bool {
        self.links.pending.is_some()
    }

    /// The rebuild queue's link unit: puts the waiting link changes in place and asks for
    /// the live paths of every movement type whose links changed to be re-planned; `true`
    /// if there were any changes.
    pub(super) fn apply_link_changes(&mut self) -> bool {
        let Some(next) = self.links.pending.take() else {
            return false;
        };
        let old = std::mem::replace(&mut self.links.links, next);
        let changed = self.links_changed_from(&old);
        self.goal_cache
            .retain_layers(|layer| !changed.contains(&layer));
        if self.replan_on_rebuild {
            let mut ids: Vec<PathId> = self
                .paths
                .iter()
                .rev()
                .filter(|(_, p)| changed.contains(&p.layer))
                .map(|(&id, _)| id)
                .collect();
            ids.retain(|id| !self.replans.contains(id));
            self.replans.extend(ids);
        }
        true
    }

    /// After the links changed (at load time): every movement type as in
    /// [`Self::links_changed_from`] with nothing kept.
    fn links_changed(&mut self) {
        self.published = None;
        for layer in 0..self.nav.layers.len() {
            self.forget_layer_search(layer);
        }
        self.refresh_link_reach();
    }

    /// After the links changed from `old`: the movement types whose usable links differ
    /// lose their search layouts, tables and end nodes (rebuilt on each type's next
    /// request); the others keep them, as a stamp elsewhere keeps a sector's tiles.
    /// Reachability is recomputed now. Returns the types that changed.
    fn links_changed_from(&mut self, old: &[NavLink]) -> Vec<usize> {
        // A version handed out carries the old links: the next one is made anew.
        self.published = None;
        let mut changed = Vec::new();
        for layer in 0..self.nav.layers.len() {
            let usable = |links: &[NavLink]| -> Vec<NavLink> {
                links.iter().filter(|l| l.allows(layer)).cloned().collect()
            };
            if usable(old) == usable(&self.links.links) {
                // Same links for the type: only their places in the list may have moved.
                self.renumber_layer_links(layer);
            } else {
                self.forget_layer_search(layer);
                changed.push(layer);
            }
        }
        self.refresh_link_reach();
        changed
    }

    /// Drops `layer`'s search layout, end nodes and the tables built over them.
    fn forget_layer_search(&mut self, layer: usize) {
        self.forget_layer_links(layer);
        if let Some(slot) = self.landmarks.get_mut(layer) {
            *slot = None;
        }
        if let Some(slot) = self.stored_landmarks.get_mut(layer) {
            *slot = None;
        }
        if let Some(slot) = self.hierarchies.get_mut(layer) {
            *slot = None;
        }
        // A stored hierarchy covers the package's links, a stale one the links before.
        if let Some(slot) = self.stored_hierarchies.get_mut(layer) {
            *slot = None;
        }
        if let Some(slot) = self.stale_hierarchies.get_mut(layer) {
            *slot = None;
        }
        self.landmark_builds.remove(&layer);
    }

    /// Points `layer`'s end nodes at their links' places in the current list.
    fn renumber_layer_links(&mut self, layer: usize) {
        let Some(Some(built)) = self.links.layers.get_mut(layer) else {
            return;
        };
        let links = &self.links.links;
        let at = |id: u32| links.iter().position(|l| l.id == id).map(|i| i as u32);
        if built.ends.iter().all(|e| at(e.id) == Some(e.link)) {
            return;
        }
        for end in &mut Arc::make_mut(built).ends {
            end.link = at(end.id).unwrap_or(end.link);
        }
    }

    /// Drops `layer`'s search layout and link end nodes (rebuilt with it).
    pub(super) fn forget_layer_links(&mut self, layer: usize) {
        // A streamed world keeps the layer's edges only in the layout: give them back first,
        // or the layout's next build would find none.
        self.restore_portal_edges(layer);
        if let Some(slot) = self.search_graphs.get_mut(layer) {
            *slot = None;
        }
        if let Some(slot) = self.links.layers.get_mut(layer) {
            *slot = None;
        }
    }

    /// Recomputes every movement type's reachability across links from the island ids of
    /// the links' end cells (after links or islands changed).
    pub(super) fn refresh_link_reach(&mut self) {
        let spec = self.nav.spec;
        let mut all = Vec::with_capacity(self.nav.layers.len());
        for layer in 0..self.nav.layers.len() {
            let mut edges = Vec::new();
            for link in self.links.links.iter().filter(|l| l.allows(layer)) {
                let islands = |e: &crate::links::LinkEnd| {
                    let c = e.center();
                    let sector = spec.sector_of(c.0, c.1);
                    let mut v: Vec<u32> = e
                        .cells()
                        .filter(|&(x, y)| spec.sector_of(x, y) == sector)
                        .map(|c| self.island_at(layer, c))
                        .filter(|&i| i != 0)
                        .collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                };
                let (ia, ib) = (islands(&link.a), islands(&link.b));
                if ia.is_empty() || ib.is_empty() {
                    continue;
                }
                for &a in &ia {
                    for &b in &ib {
                        edges.push((a, b));
                        if link.two_way {
                            edges.push((b, a));
                        }
                    }
                }
            }
            all.push(LinkReach::new(&edges));
        }
        self.links.reach = all;
    }

    /// Whether an agent on island `from` of movement type `layer` can reach island `to`,
    /// on the ground or across links.
    pub(super) fn island_reaches(&self, layer: usize, from: u32, to: u32) -> bool {
        if from == 0 || to == 0 {
            return false;
        }
        from == to
            || self
                .links
                .reach
                .get(layer)
                .is_some_and(|r| r.reaches(from, to))
    }

    /// Whether movement type `layer` may use any link.
    pub(super) fn layer_has_links(&self, layer: usize) -> bool {
        self.links.links.iter().any(|l| l.allows(layer))
    }

    /// The cost tiles of the sectors `layer`'s links end in (a streamed world reads them
    /// before the type's end nodes are built).
    pub(super) fn ensure_link_sectors(&mut self, layer: usize) -> Result<(), super::PathError> {
        if self.links.layers.get(layer).is_some_and(Option::is_some) || !self.layer_has_links(layer)
        {
            return Ok(());
        }
        let spec = self.nav.spec;
        let sectors: Vec<u32> = self
            .links
            .links
            .iter()
            .filter(|l| l.allows(layer))
            .flat_map(|l| [l.a.center(), l.b.center()])
            .map(|c| spec.sector_of(c.0, c.1))
            .collect();
        self.ensure_sectors(layer, sectors)
    }

    /// `layer`'s link end nodes, built from the layer as it is now; called when its search
    /// layout is built.
    pub(super) fn build_layer_links(&mut self, layer: usize) -> Arc<LayerLinks> {
        if self.links.layers.len() < self.nav.layers.len() {
            self.links
                .layers
                .resize_with(self.nav.layers.len(), || None);
        }
        let built = Arc::new(LayerLinks::build(
            &self.nav.layers[layer],
            layer,
            &self.links.links,
            self.nav.cell_size_m,
        ));
        self.links.layers[layer] = Some(Arc::clone(&built));
        built
    }

    /// `layer`'s link end nodes as its current search layout has them (`None` before its
    /// first request or without links).
    #[must_use]
    pub fn layer_links(&self, move_type: impl Into<MoveType>) -> Option<&LayerLinks> {
        self.links
            .layers
            .get(move_type.into().index())
            .and_then(Option::as_deref)
            .filter(|l| !l.is_empty())
    }

    /// When an agent at `pos` (cell units) on path `id` stands on the entry of a link its
    /// route takes next, the link and where it leads: the agent traverses it (walks along
    /// it, boards, teleports or drops, by its kind) instead of following the flow, which
    /// ends there. `None` elsewhere.
    #[must_use]
    pub fn link_at(&self, id: PathId, pos: (f32, f32)) -> Option<LinkStep> {
        self.link_at_on(self.paths.get(&id)?, pos)
    }

    /// [`Self::link_at`] on a path held outside the world (a query's).
    pub(crate) fn link_at_on(&self, p: &super::PathState, pos: (f32, f32)) -> Option<LinkStep> {
        if pos.0 < 0.0 || pos.1 < 0.0 {
            return None;
        }
        self.link_step_at(p, (pos.0 as u32, pos.1 as u32))
    }

    /// [`Self::link_at`] for a cell of path `p`.
    pub(super) fn link_step_at(&self, p: &super::PathState, cell: (u32, u32)) -> Option<LinkStep> {
        let links = p.links.as_deref()?;
        let spec = self.nav.spec;
        if cell.0 >= spec.width || cell.1 >= spec.height {
            return None;
        }
        let sector = spec.sector_of(cell.0, cell.1);
        let step = |node: u32| {
            let end = links.end(node)?;
            if !end.cells.contains(&cell) {
                return None;
            }
            let other = links.end(node ^ 1)?;
            let exit = if other.cells.contains(&other.center) {
                other.center
            } else {
                *other.cells.get(other.cells.len() / 2)?
            };
            Some(LinkStep {
                id: end.id,
                exit,
                exit_area: other.area,
                kind: end.kind,
                width_m: end.width_m,
            })
        };
        // The first exit of the sector that is a link entry holding the cell: the one whose
        // tile led the agent here; else a link the goal field there leads onto.
        let exits = p.exits_in(sector);
        exits.iter().find_map(|&(_, node)| step(node)).or_else(|| {
            let (field, ..) = p.field_at(p.cover(sector), cell)?;
            field.link_entries.iter().find_map(|&node| step(node))
        })
    }
}

impl NavWorld {
    /// Landmark tables of a movement type with links, over its search layout with the end
    /// nodes (tables over the portal graph alone would overestimate across a link that is
    /// cheaper than the ground, a teleport above all). Built on the type's first request;
    /// the package's stored tables, made without links, are not used.
    pub(super) fn ensure_link_landmarks(&mut self, layer: usize) {
        if self.landmarks.len() < self.nav.layers.len() {
            self.landmarks.resize_with(self.nav.layers.len(), || None);
        }
        self.search_graph(layer);
        let Some(graph) = self.search_graphs[layer].as_ref() else {
            return;
        };
        if self.landmarks[layer]
            .as_ref()
            .is_some_and(|t| t.node_count() == graph.len())
        {
            return;
        }
        self.restore_portal_edges(layer);
        let Some(graph) = self.search_graphs[layer].as_ref() else {
            return;
        };
        let l = &self.nav.layers[layer];
        let sources: Vec<u32> =
            crate::landmarks::pick_landmarks(l, crate::landmarks::LANDMARK_COUNT)
                .into_iter()
                .map(|n| graph.search_id(n))
                .collect();
        let mut builder =
            crate::landmarks::LandmarkBuilder::over_graph(graph.search_csr(), sources);
        while !builder.step(l) {}
        self.landmarks[layer] = builder.finish(l).map(Arc::new);
    }
}
