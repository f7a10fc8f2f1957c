//! The inspect tool: hovering shows everything the editor knows about one cell in the status
//! bar — including *why* each movement type's cost is what it is; a drag pans.

use crate::app::backend::BakeOutput;
use crate::app::model::OpenMap;
use crate::app::model::stamp_placement::{library, placement_rect};
use crate::bake::terrain_cost::terrain_cost;
use crate::map::{PaintForce, PaintTarget, StampCell, WaterRule};
use crate::nav::grid::WALL;

use super::{Canvas, EditorTool, ToolCx};

/// One reason behind a cell's final cost for one movement type, in bake-stage order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Terrain cost from the slope→cost curve.
    Slope(u8),
    /// Steeper than the type's max slope: a wall.
    TooSteep,
    /// Under water: the type's water cost.
    Water(u8),
    /// Under water, and the type cannot cross water: a wall.
    WaterWall,
    /// Blocked in the heightmap (no-data or grid wall).
    Blocked,
    /// A wall added by the type's wall buffer (large units keep clear of walls).
    Buffer,
    /// Cost the wall blur added near walls.
    Blur(u8),
    /// Designer cost paint, summed over the layers that target the type.
    Paint(i32),
    /// Force-wall paint.
    PaintWall,
    /// Force-clear paint: a wall made passable.
    Clear,
    /// A placed stamp's wall cell (the stamp id).
    StampWall(String),
    /// A placed stamp's cost cell, which replaces every other cost (the stamp id and cost).
    StampCost(String, u8),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Slope(c) => write!(f, "slope {c}"),
            Self::TooSteep => f.write_str("too steep"),
            Self::Water(c) => write!(f, "water {c}"),
            Self::WaterWall => f.write_str("water"),
            Self::Blocked => f.write_str("blocked"),
            Self::Buffer => f.write_str("buffer"),
            Self::Blur(c) => write!(f, "blur +{c}"),
            Self::Paint(d) => write!(f, "paint {d:+}"),
            Self::PaintWall => f.write_str("paint wall"),
            Self::Clear => f.write_str("clear"),
            Self::StampWall(id) => write!(f, "stamp {id}"),
            Self::StampCost(id, c) => write!(f, "stamp {id} {c}"),
        }
    }
}

/// One movement type's cost at the hovered cell and the reasons for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeCost {
    /// The movement type's name.
    pub name: String,
    /// Final cost (255 = wall).
    pub cost: u8,
    /// Why, in bake-stage order (empty before the first bake).
    pub why: Vec<Why>,
}

impl TypeCost {
    /// `land: 14 (slope 8, blur +4, paint +2)` or `large: wall (buffer)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let cost = if self.cost == WALL {
            "wall".to_owned()
        } else {
            self.cost.to_string()
        };
        if self.why.is_empty() {
            return format!("{}: {cost}", self.name);
        }
        let why: Vec<String> = self.why.iter().map(ToString::to_string).collect();
        format!("{}: {cost} ({})", self.name, why.join(", "))
    }
}

/// What the status bar shows for the hovered cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellInfo {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// World position of the cell centre. `[Units: m]`
    pub world_m: (f32, f32),
    /// Terrain height. `[Units: m]`
    pub height_m: f32,
    /// Slope, once baked. `[Units: degrees]`
    pub slope_deg: Option<f32>,
    /// Baked cost per movement type, in document order (255 = wall).
    pub costs: Vec<(String, u8)>,
    /// The same costs with the reasons behind them.
    pub why: Vec<TypeCost>,
    /// Sector column, row and row-major id.
    pub sector: (u32, u32, u32),
    /// The nav links with an end on the cell, one line each: which end, where the link
    /// leads and what it is.
    pub links: Vec<String>,
}

/// Reads cell `(x, y)`; `None` off the map.
#[must_use]
pub fn inspect_cell(map: &OpenMap, baked: Option<&BakeOutput>, x: u32, y: u32) -> Option<CellInfo> {
    let (w, h) = (map.heightmap.width, map.heightmap.height);
    if x >= w || y >= h {
        return None;
    }
    let i = y as usize * w as usize + x as usize;
    let doc = &map.document;
    let sector_size = u32::from(doc.sector_size.max(1));
    let (sx, sy) = (x / sector_size, y / sector_size);
    let costs: Vec<(String, u8)> = baked
        .map(|b| {
            b.types
                .iter()
                .filter_map(|t| Some((t.name.clone(), *t.final_cost.get(i)?)))
                .collect()
        })
        .unwrap_or_default();
    let why = costs
        .iter()
        .enumerate()
        .map(|(k, (name, cost))| TypeCost {
            name: name.clone(),
            cost: *cost,
            why: baked.map(|b| explain(map, b, k, i)).unwrap_or_default(),
        })
        .collect();
    Some(CellInfo {
        x,
        y,
        world_m: (
            (x as f32 + 0.5) * doc.cell_size_m,
            (y as f32 + 0.5) * doc.cell_size_m,
        ),
        height_m: doc.height_m(map.heightmap.height01.get(i).copied().unwrap_or(0.0)),
        slope_deg: baked.and_then(|b| b.slope_deg.get(i).copied()),
        costs,
        why,
        sector: (sx, sy, sy * w.div_ceil(sector_size) + sx),
        links: doc
            .links
            .iter()
            .filter_map(|l| {
                let at = |e: &crate::nav::links::LinkEnd| e.contains((x, y));
                let (role, other) = if at(&l.a) {
                    ("entry", &l.b)
                } else if at(&l.b) {
                    (if l.two_way { "entry" } else { "exit" }, &l.a)
                } else {
                    return None;
                };
                let (ox, oy) = other.center();
                let to = if role == "exit" { "from" } else { "to" };
                Some(format!(
                    "{}: {role} {to} ({ox}, {oy})",
                    super::link::describe(l)
                ))
            })
            .collect(),
    })
}

/// Why baked layer `k` has its cost at cell `i`: read back from the bake's final cost and
/// buffer/blur contributions, its stage-2 base cost, and the document's paint and stamps,
/// following the stage order documented in `bake::paint`.
///
/// The base cost comes from the last full bake (it depends on heights and type settings
/// only, whose edits trigger a full bake); paint and stamps are read from the document.
fn explain(map: &OpenMap, out: &BakeOutput, k: usize, i: usize) -> Vec<Why> {
    let Some(layer) = out.types.get(k) else {
        return Vec::new();
    };
    let Some(ty) = map
        .document
        .movement_types
        .iter()
        .find(|t| t.name == layer.name)
    else {
        return Vec::new();
    };
    let (Some(&base), Some(&final_cost)) = (layer.base_cost.get(i), layer.final_cost.get(i)) else {
        return Vec::new();
    };
    let doc = &map.document;
    // Paint: the layers that target this type, summed deltas, and the last force (later
    // layers override earlier ones).
    let mut delta = 0i32;
    let mut force = PaintForce::None;
    for paint in doc.paint.iter().filter(|l| match &l.target {
        PaintTarget::All => true,
        PaintTarget::Type(name) => *name == ty.name,
    }) {
        if let Some(cell) = paint.cells.get(i) {
            delta += i32::from(cell.delta);
            if cell.force != PaintForce::None {
                force = cell.force;
            }
        }
    }
    // Stamps: the last opaque footprint cell over this cell decides. Only the placements
    // whose rectangle holds the cell are turned into footprints (the status bar explains
    // the hovered cell every frame; parsing every stamp of a big map each time cost a
    // paint frame on the 2048² benchmark map about 6 % of its time).
    let mw = map.heightmap.width as usize;
    let (cx, cy) = ((i % mw) as i32, (i / mw) as i32);
    let mut stamp: Option<(String, StampCell)> = None;
    for p in &doc.stamps {
        if !placement_rect(library(), p).is_some_and(|r| r.contains(cx, cy)) {
            continue;
        }
        let Some(fp) = library()
            .get(&p.stamp)
            .and_then(|st| st.footprint(p.rotation).ok())
        else {
            continue;
        };
        if let Some(cell) = fp.get((cx - p.x) as u32, (cy - p.y) as u32)
            && cell != StampCell::Transparent
        {
            stamp = Some((p.stamp.clone(), cell));
        }
    }
    let terrain = terrain_reason(map, &out.slope_deg, ty, i, base);
    let contribution = layer.contribution.get(i).copied().unwrap_or(0);

    if final_cost == WALL {
        // Stage 3 order: terrain, then stamps, then paint; the buffer grows what is left.
        let why = if force == PaintForce::Wall {
            Why::PaintWall
        } else if let Some((id, StampCell::Wall)) = &stamp {
            Why::StampWall(id.clone())
        } else if contribution == WALL {
            Why::Buffer
        } else {
            terrain
        };
        return vec![why];
    }
    let mut why = Vec::new();
    if force == PaintForce::Clear {
        why.push(Why::Clear);
    }
    // An opaque stamp cost replaces the terrain, blur and paint (stage 7, rule 3).
    if let Some((id, StampCell::Cost(_))) = &stamp {
        why.push(Why::StampCost(id.clone(), final_cost));
        return why;
    }
    if base != WALL {
        why.push(terrain);
    }
    if contribution != 0 && contribution != WALL {
        why.push(Why::Blur(contribution));
    }
    if delta != 0 {
        why.push(Why::Paint(delta));
    }
    why
}

/// Which stage-2 rule gave `base`: asks [`terrain_cost`] itself, once as the bake ran it and
/// once with a water cost no dry cell can have, so the rules live only in `bake`.
fn terrain_reason(
    map: &OpenMap,
    slope_deg: &[f32],
    ty: &crate::map::MovementType,
    i: usize,
    base: u8,
) -> Why {
    let doc = &map.document;
    let hm = &map.heightmap;
    if hm.blocked.get(i).copied().unwrap_or(false) {
        return Why::Blocked;
    }
    let slope = [slope_deg.get(i).copied().unwrap_or(f32::NAN)];
    let height = [hm.height01.get(i).copied().unwrap_or(0.0)];
    let run = |ty: &crate::map::MovementType, water_level_m: f32| {
        terrain_cost(&slope, &height, &[], doc.height_scale_m, water_level_m, ty)
            .first()
            .copied()
            .unwrap_or(WALL)
    };
    // The cost this cell would have if it were dry; a water cost different from it (and
    // from a wall) marks the water rule when it fires.
    let dry = run(ty, f32::NEG_INFINITY);
    let marker = if dry == 7 { 8 } else { 7 };
    let mut probe = ty.clone();
    probe.water = WaterRule::Cost(marker);
    let is_water = run(&probe, doc.water_above_black_m()) == marker;
    match (is_water, base == WALL) {
        (true, true) => Why::WaterWall,
        (true, false) => Why::Water(base),
        (false, true) => Why::TooSteep,
        (false, false) => Why::Slope(base),
    }
}

/// The inspect tool: reads cells, changes nothing.
#[derive(Debug, Default)]
pub struct InspectTool;

impl EditorTool for InspectTool {
    fn name() -> &'static str {
        "Inspect"
    }

    fn shortcut() -> egui::Key {
        egui::Key::I
    }

    fn description() -> &'static str {
        "Hover to read a cell's height, slope, cost and sector."
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, _cx: &mut ToolCx<'_>) {
        ui.weak("Hover the map: the status bar shows the cell. Drag to pan.");
    }

    fn input(&mut self, _canvas: &Canvas<'_>, _cx: &mut ToolCx<'_>) {}
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::app::backend::{bake_full, tests_support};
    use crate::map::{Heightmap, PaintCell, PaintLayer, StampPlacement};

    /// A hand-built 20 × 20 map (1 m cells, heights ×10 m, water below 2 m): flat ground at
    /// 5 m for x < 16, a 1 m deep lake for x ≥ 16 (so x = 15 is a 63° cliff), a force-wall
    /// dab at (5, 10), +40 cost at (3, 3), force-clear at (18, 15) in the lake, and a
    /// factory stamp at (2, 12).
    fn hand_built() -> (OpenMap, BakeOutput) {
        let (w, h) = (20u32, 20u32);
        let height01 = (0..w * h)
            .map(|i| if i % w >= 16 { 0.1 } else { 0.5 })
            .collect();
        let heightmap = Heightmap {
            width: w,
            height: h,
            height01,
            blocked: Vec::new(),
        };
        let mut document = tests_support::doc();
        document.water_level_m = 2.0;
        let mut cells = vec![PaintCell::default(); (w * h) as usize];
        cells[(10 * w + 5) as usize].force = PaintForce::Wall;
        cells[(3 * w + 3) as usize].delta = 40;
        cells[(15 * w + 18) as usize].force = PaintForce::Clear;
        document.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells,
        });
        document.stamps.push(StampPlacement {
            stamp: "factory_6x4".to_owned(),
            x: 2,
            y: 12,
            rotation: 0,
        });
        let out = bake_full(
            &document,
            &heightmap,
            &Arc::new(AtomicBool::new(false)),
            Box::new(|_| {}),
        )
        .unwrap();
        let map = OpenMap {
            document,
            heightmap: Arc::new(heightmap),
            path: None,
        };
        (map, out)
    }

    fn why(map: &OpenMap, out: &BakeOutput, x: u32, y: u32, ty: &str) -> TypeCost {
        inspect_cell(map, Some(out), x, y)
            .unwrap()
            .why
            .into_iter()
            .find(|t| t.name == ty)
            .unwrap()
    }

    #[test]
    fn explains_each_stage_on_a_hand_built_map() {
        let (map, out) = hand_built();
        let land = |x, y| why(&map, &out, x, y, "land");
        // Flat ground with paint: the curve's 1 plus the painted 40, nothing else.
        let painted = land(3, 3);
        assert_eq!(painted.cost, 41);
        assert_eq!(painted.why, vec![Why::Slope(1), Why::Paint(40)]);
        assert_eq!(painted.summary(), "land: 41 (slope 1, paint +40)");
        // The cliff edge (5 m down over 2 cells, 63°) is steeper than land's 35°.
        assert_eq!(land(15, 5).why, vec![Why::TooSteep]);
        // The lake: a wall for land and large, hover's water cost for hover.
        assert_eq!(land(19, 5).why, vec![Why::WaterWall]);
        assert_eq!(why(&map, &out, 19, 5, "large").why, vec![Why::WaterWall]);
        let hover = why(&map, &out, 19, 5, "hover");
        assert_eq!((hover.cost, hover.why), (2, vec![Why::Water(2)]));
        // The painted wall, the large unit's buffer beside it, and land's blur beside it.
        assert_eq!(land(5, 10).why, vec![Why::PaintWall]);
        let large = why(&map, &out, 6, 10, "large");
        assert_eq!((large.cost, large.why), (WALL, vec![Why::Buffer]));
        let beside = land(6, 10);
        assert!(beside.cost > 1, "{beside:?}");
        assert_eq!(beside.why, vec![Why::Slope(1), Why::Blur(beside.cost - 1)]);
        // Force-clear in the lake: passable, counted as 1, plus the blur of the water walls
        // on both sides.
        let cleared = land(18, 15);
        assert_ne!(cleared.cost, WALL);
        assert_eq!(cleared.why[0], Why::Clear);
        assert_eq!(
            cleared.why[1..],
            [Why::Blur(cleared.cost - 1)],
            "{cleared:?}"
        );
        // The factory: its wall ring and its cost-1 floor, which replaces the blur.
        let factory = "factory_6x4".to_owned();
        assert_eq!(land(2, 12).why, vec![Why::StampWall(factory.clone())]);
        let floor = land(4, 13);
        assert_eq!(
            (floor.cost, floor.why),
            (1, vec![Why::StampCost(factory, 1)])
        );
        // Far from everything: only the curve.
        assert_eq!(land(10, 3).why, vec![Why::Slope(1)]);
    }
}
