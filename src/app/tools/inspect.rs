//! The inspect tool: everything the editor knows about one cell, for the status bar.

use crate::app::backend::BakeOutput;
use crate::app::state::OpenMap;

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
    /// Sector column, row and row-major id.
    pub sector: (u32, u32, u32),
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
    let costs = baked
        .map(|b| {
            b.types
                .iter()
                .filter_map(|t| Some((t.name.clone(), *t.final_cost.get(i)?)))
                .collect()
        })
        .unwrap_or_default();
    Some(CellInfo {
        x,
        y,
        world_m: (
            (x as f32 + 0.5) * doc.cell_size_m,
            (y as f32 + 0.5) * doc.cell_size_m,
        ),
        height_m: map.heightmap.height01.get(i).copied().unwrap_or(0.0) * doc.height_scale_m,
        slope_deg: baked.and_then(|b| b.slope_deg.get(i).copied()),
        costs,
        sector: (sx, sy, sy * w.div_ceil(sector_size) + sx),
    })
}
