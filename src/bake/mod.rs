//! Editor-time bake: document + heights → final cost field per movement type, then nav/
//! builds sectors, portals, the portal graph, islands and flow permutations.
//!
//! The stages, in order, per movement type (a designer can predict a brush stroke from this):
//! 1. heights → slope in degrees ([`slope`]), shared by all types;
//! 2. slope → cost through the type's curve; steeper than `max_slope_deg` → wall; water →
//!    wall or the type's water cost; blocked cells (no data, grid walls) → wall
//!    ([`terrain_cost`]);
//! 3. wall mask: terrain walls + force-wall paint + stamp walls, minus force-clear paint and
//!    minus opaque non-wall stamp cells such as bridge decks ([`paint::wall_mask`]);
//! 4. wall buffer: cells too close to a wall for the type's `wall_buffer_m` become walls,
//!    by an exact Euclidean distance transform ([`distance`], [`wall_buffer`]); force-clear
//!    paint is applied again after it; then pockets of passable ground walled in on every
//!    side and no bigger than the type's `min_island_cells` become walls ([`pockets`]);
//! 5. wall blur: cost added near the final walls, falling to 0 at the blur radius
//!    ([`wall_blur`]);
//! 6. designer cost paint (add/remove), then stamp costs replace what is under them, clamped
//!    to `1..=254` ([`paint::apply_costs`]);
//! 7. sectors → portal windows → portal graph → islands → flow permutations
//!    ([`crate::nav::build_layer`]).
//!
//! [`bake`] runs it all; [`rebake_rect`] re-runs it for a dirty rectangle and rebuilds only
//! the sectors whose final costs changed, giving exactly what a full bake would.

pub mod context;
pub mod cost_layers;
pub mod distance;
pub mod paint;
pub mod pockets;
pub mod preview;
pub mod slope;
pub mod terrain_cost;
pub mod wall_blur;
pub mod wall_buffer;

pub use context::{BakeContext, StageTiming};
pub use cost_layers::{CellRect, CostInputError, CostInputs, CostLayers};

use std::sync::Arc;

use rayon::prelude::*;

use crate::map::{Heightmap, MapDocument, MapError, MovementType, PaintTarget, StampLibrary};
use crate::nav::{CostField, GridSpec, NavData, NavLayer};
use paint::PlacedFootprint;

/// What to bake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BakeOptions {
    /// Names of the movement types to bake; `None` bakes all of them.
    pub types: Option<Vec<String>>,
    /// Drop each type's intermediate grids ([`CostLayers`], 5 bytes per cell) as soon as its
    /// cost field is taken from them, and the slope grid after the last type's cost field:
    /// for a bake that only writes a package (`navstudio bake`). The editor keeps them for its overlays and for
    /// [`rebake_rect`], which needs them.
    pub nav_only: bool,
}

/// Why a bake could not run.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The user cancelled the bake.
    #[error("the bake was cancelled")]
    Cancelled,
    /// The document is invalid (the message says which value and what to do).
    #[error(transparent)]
    Document(#[from] MapError),
    /// The heightmap, paint or stamps do not match the map size.
    #[error(transparent)]
    Inputs(#[from] CostInputError),
    /// `--types` named a movement type the document does not define.
    #[error("the map has no movement type named '{name}'; choose from: {known}")]
    UnknownType {
        /// The name asked for.
        name: String,
        /// The document's movement types, comma-separated.
        known: String,
    },
    /// A placed stamp refers to a stamp missing from the library.
    #[error(
        "stamp placement {index} uses stamp '{id}', which the stamp library does not have; remove the placement or add the stamp to assets/stamps.ron"
    )]
    UnknownStamp {
        /// Position in the document's stamp list.
        index: usize,
        /// The missing stamp id.
        id: String,
    },
    /// The document and the heightmap disagree on nothing bakeable.
    #[error(
        "the map has no movement type to bake; add one in the movement-type panel or the .ron file"
    )]
    NoMovementTypes,
}

/// Everything a bake produces: the per-type intermediate grids (for overlays and tests) and
/// the navigation data the run time uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Baked {
    /// Stage 1's slope per cell (empty with [`BakeOptions::nav_only`]), shared like `nav`.
    /// `[Units: degrees]`
    pub slope_deg: Arc<Vec<f32>>,
    /// Placed stamp footprints, in placement order.
    pub footprints: Vec<PlacedFootprint>,
    /// Index into the document's movement types of each baked layer.
    pub type_indices: Vec<usize>,
    /// Intermediate and final cost grids, one per baked type (none with
    /// [`BakeOptions::nav_only`]).
    pub cost_layers: Vec<CostLayers>,
    /// Sectors, portals, graph, islands and flow permutations, one layer per baked type.
    /// Shared with readers (the editor's overlays and previews) without a copy;
    /// [`rebake_rect`] copies it only if it changes while another holds it.
    pub nav: Arc<NavData>,
}

/// What a package records beside the nav data of a bake of `doc`: the map name, each baked
/// movement type's parameters (JSON, in layer order: `type_indices` from [`Baked`]) and the
/// document settings the bake used.
#[must_use]
pub fn package_meta(doc: &MapDocument, type_indices: &[usize]) -> crate::package::PackageMeta {
    let setting = |k: &str, v: String| (k.to_owned(), v);
    crate::package::PackageMeta {
        map_name: doc.name.clone(),
        layer_params: type_indices
            .iter()
            .filter_map(|&t| doc.movement_types.get(t))
            .map(|t| serde_json::to_value(t).unwrap_or_default())
            .collect(),
        bake_options: vec![
            setting("sector_size", doc.sector_size.to_string()),
            setting("cell_size_m", doc.cell_size_m.to_string()),
            setting("height_scale_m", doc.height_scale_m.to_string()),
            setting("height_base_m", doc.height_base_m.to_string()),
            setting("water_level_m", doc.water_level_m.to_string()),
            setting("stamps_placed", doc.stamps.len().to_string()),
            setting("paint_layers", doc.paint.len().to_string()),
        ],
        hierarchy: None,
        links: doc.nav_links(type_indices),
    }
}

/// Bakes the chosen movement types of a map.
///
/// A type with no passable cell at all bakes to an all-wall layer with a warning in `ctx`
/// (a designer may be midway through an edit), not an error.
///
/// # Errors
/// [`BakeError`] for an invalid document, inputs of the wrong size, an unknown type or stamp,
/// or cancellation.
pub fn bake(
    doc: &MapDocument,
    heightmap: &Heightmap,
    stamps: &StampLibrary,
    options: &BakeOptions,
    ctx: &mut BakeContext,
) -> Result<Baked, BakeError> {
    doc.validate()?;
    let type_indices = chosen_types(doc, options)?;
    let footprints = place_footprints(doc, stamps)?;
    let (width, height) = (heightmap.width, heightmap.height);
    let spec = GridSpec {
        width,
        height,
        sector_size: u32::from(doc.sector_size),
    };
    let mut slope_deg = ctx.stage("slope", |_| {
        slope::slope_deg(
            &heightmap.height01,
            width,
            height,
            doc.cell_size_m,
            doc.height_scale_m,
        )
    });
    let mut cost_layers = Vec::with_capacity(type_indices.len());
    let mut layers = Vec::with_capacity(type_indices.len());
    for (i, &t) in type_indices.iter().enumerate() {
        let ty = &doc.movement_types[t];
        let input = cost_inputs(doc, heightmap, &slope_deg, &footprints, ty);
        let costs = ctx.stage(&format!("{}: cost field", ty.name), |_| {
            cost_layers::bake_cost_field(&input, ty)
        })?;
        if options.nav_only && i + 1 == type_indices.len() {
            // The last type's cost field was the last reader of the slope grid.
            slope_deg = Vec::new();
        }
        if ctx.is_cancelled() {
            return Err(BakeError::Cancelled);
        }
        let cost = CostField::from_cells(spec, &costs.final_cost);
        let passable = passable_cells(&costs.final_cost);
        // Gone before the layer's build, the bake's biggest stage, rather than after it.
        let kept_costs = (!options.nav_only).then_some(costs);
        let stage = format!("{}: portals, islands, flow permutations", ty.name);
        let layer = ctx
            .stage(&stage, |c| {
                crate::nav::build_layer(&ty.name, cost, &|p| c.progress(&stage, p), c.cancel_flag())
            })
            .ok_or(BakeError::Cancelled)?;
        warn_about_layer(ctx, &layer, passable);
        cost_layers.extend(kept_costs);
        layers.push(layer);
    }
    Ok(Baked {
        slope_deg: Arc::new(slope_deg),
        footprints,
        type_indices,
        cost_layers,
        nav: Arc::new(NavData::new(spec, doc.cell_size_m, layers)),
    })
}

/// Re-bakes after an edit inside `dirty` (paint, stamps placed or removed — pass a rectangle
/// covering both the old and new footprint —, or heights: include the 1-cell slope stencil).
/// Only sectors whose final costs changed get new portals, graph edges, islands and flow
/// permutations. Afterwards `baked` equals a fresh [`bake`] of the same document.
///
/// Movement-type parameter changes need a full [`bake`] of that type.
///
/// # Errors
/// As [`bake`]; on error `baked` may hold a partly updated cost layer and should be re-baked.
pub fn rebake_rect(
    doc: &MapDocument,
    heightmap: &Heightmap,
    stamps: &StampLibrary,
    baked: &mut Baked,
    dirty: CellRect,
    ctx: &mut BakeContext,
) -> Result<(), BakeError> {
    let (width, height) = (heightmap.width, heightmap.height);
    let dirty = dirty.clip(width, height);
    if dirty.is_empty() {
        return Ok(());
    }
    baked.footprints = place_footprints(doc, stamps)?;
    ctx.stage("slope (dirty rect)", |_| {
        let rect_slope = slope::slope_deg_rect(
            &heightmap.height01,
            width,
            height,
            doc.cell_size_m,
            doc.height_scale_m,
            dirty,
        );
        let rw = dirty.width() as usize;
        let row_start = |row: usize| (dirty.y0 as usize + row) * width as usize + dirty.x0 as usize;
        // Paint and stamps leave heights alone: the slope is then written (and, if shared,
        // copied) only when it changed.
        let same = rect_slope.chunks_exact(rw).enumerate().all(|(row, src)| {
            baked.slope_deg.get(row_start(row)..row_start(row) + rw) == Some(src)
        });
        if !same {
            let slope = Arc::make_mut(&mut baked.slope_deg);
            for (row, src) in rect_slope.chunks_exact(rw).enumerate() {
                slope[row_start(row)..row_start(row) + rw].copy_from_slice(src);
            }
        }
    });
    for (slot, &t) in baked.type_indices.iter().enumerate() {
        let ty = &doc.movement_types[t];
        let input = cost_inputs(doc, heightmap, &baked.slope_deg, &baked.footprints, ty);
        let costs = &mut baked.cost_layers[slot];
        ctx.stage(&format!("{}: cost field (dirty rect)", ty.name), |_| {
            cost_layers::rebake_rect(&input, ty, costs, dirty)
        })?;
        let reach = cost_layers::reach_cells(ty, doc.cell_size_m);
        let affected = dirty.expand(reach).clip(width, height);
        let changed = changed_sectors(&baked.nav.layers[slot], &costs.final_cost, affected);
        if !changed.is_empty() {
            let layer = &mut Arc::make_mut(&mut baked.nav).layers[slot];
            ctx.stage(
                &format!("{}: rebuild {} sectors", ty.name, changed.len()),
                |_| {
                    for &s in &changed {
                        layer.cost.update_sector_from_cells(&costs.final_cost, s);
                    }
                    crate::nav::rebuild_sectors(layer, &changed);
                },
            );
        }
        if ctx.is_cancelled() {
            return Err(BakeError::Cancelled);
        }
    }
    Ok(())
}

/// Sectors overlapping `rect` whose stored costs differ from `final_cost`, ascending.
fn changed_sectors(layer: &NavLayer, final_cost: &[u8], rect: CellRect) -> Vec<u32> {
    let spec = layer.cost.spec;
    let ss = spec.sector_size;
    let mut out = Vec::new();
    let mut tile = Vec::new();
    for sy in rect.y0 / ss..rect.y1.div_ceil(ss) {
        for sx in rect.x0 / ss..rect.x1.div_ceil(ss) {
            let s = sy * spec.sectors_x() + sx;
            layer.cost.sector_cells(s, &mut tile);
            let (x0, y0, w, h) = spec.sector_rect(s);
            let same = (0..h).all(|row| {
                let start = spec.index(x0, y0 + row);
                final_cost[start..start + w as usize]
                    == tile[(row * w) as usize..((row + 1) * w) as usize]
            });
            if !same {
                out.push(s);
            }
        }
    }
    out
}

/// The stage inputs of one movement type.
fn cost_inputs<'a>(
    doc: &'a MapDocument,
    heightmap: &'a Heightmap,
    slope_deg: &'a [f32],
    footprints: &'a [PlacedFootprint],
    ty: &MovementType,
) -> CostInputs<'a> {
    CostInputs {
        width: heightmap.width,
        height: heightmap.height,
        cell_size_m: doc.cell_size_m,
        height_scale_m: doc.height_scale_m,
        water_level_m: doc.water_above_black_m(),
        height01: &heightmap.height01,
        blocked: &heightmap.blocked,
        slope_deg,
        paint: doc
            .paint
            .iter()
            .filter(|l| match &l.target {
                PaintTarget::All => true,
                PaintTarget::Type(name) => *name == ty.name,
            })
            .collect(),
        stamps: footprints,
    }
}

/// Rotated footprints of the document's stamp placements.
///
/// # Errors
/// [`BakeError::UnknownStamp`] for a placement whose stamp is missing; a bad rotation or
/// stamp definition as [`BakeError::Document`].
pub fn place_footprints(
    doc: &MapDocument,
    stamps: &StampLibrary,
) -> Result<Vec<PlacedFootprint>, BakeError> {
    doc.stamps
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let stamp = stamps
                .get(&p.stamp)
                .ok_or_else(|| BakeError::UnknownStamp {
                    index,
                    id: p.stamp.clone(),
                })?;
            let fp = stamp.footprint(p.rotation)?;
            Ok(PlacedFootprint {
                x: p.x,
                y: p.y,
                width: fp.width,
                height: fp.height,
                cells: fp.cells,
            })
        })
        .collect()
}

fn chosen_types(doc: &MapDocument, options: &BakeOptions) -> Result<Vec<usize>, BakeError> {
    if doc.movement_types.is_empty() {
        return Err(BakeError::NoMovementTypes);
    }
    let Some(names) = &options.types else {
        return Ok((0..doc.movement_types.len()).collect());
    };
    names
        .iter()
        .map(|name| {
            doc.movement_types
                .iter()
                .position(|t| t.name == *name)
                .ok_or_else(|| BakeError::UnknownType {
                    name: name.clone(),
                    known: doc
                        .movement_types
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}

/// Cells of a final cost field that are not walls.
fn passable_cells(final_cost: &[u8]) -> usize {
    final_cost
        .par_iter()
        .with_min_len(1 << 16)
        .filter(|&&c| c != crate::nav::grid::WALL)
        .count()
}

/// Designer-facing warnings: no passable cell, or passable cells cut off from the main area
/// (`passable` counts the layer's cells that are not walls).
fn warn_about_layer(ctx: &mut BakeContext, layer: &NavLayer, passable: usize) {
    if passable == 0 {
        ctx.warnings.push(format!(
            "{}: no cell is passable — every cell is a wall (check max slope, water rule and paint)",
            layer.name
        ));
        return;
    }
    if layer.islands.count > 1 {
        let sizes = layer.islands.cells_per_island();
        let largest = sizes[1..].iter().copied().max().unwrap_or(0);
        let cut_off = passable - largest;
        if cut_off > 0 {
            ctx.warnings.push(format!(
                "{}: {} islands; {:.1} % of passable cells cannot reach the largest one",
                layer.name,
                layer.islands.count,
                100.0 * cut_off as f64 / passable as f64
            ));
        }
    }
}
