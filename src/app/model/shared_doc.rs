//! Copies of the open document that bake requests and autosaves share with their threads.
//!
//! A bake request needs the whole document, but on a 2048² map each paint layer is 16 MB:
//! cloning it for every brush frame's request cost 10–300 ms of the frame (allocation and
//! page faults of a fresh 16 MB, more under load), and the autosave's clone 45–90 ms. Instead
//! the editor keeps up to [`MAX_COPIES`] copies behind [`Arc`]s and, when one is asked for,
//! brings a copy no thread holds any more ([`Arc::get_mut`]) up to date in place: the small
//! fields cloned, the paint copied only inside the cells that changed since that copy was
//! last brought up to date. A copy a thread still holds is never written, so a running bake
//! or autosave never sees its document change.

use std::sync::Arc;

use crate::map::{MapDocument, PaintLayer};

use crate::nav::grid::CellRect;

/// Copies kept: one for the bake thread, one for an autosave in flight, one spare.
pub const MAX_COPIES: usize = 3;

/// What changed in the document since a copy was brought up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stale {
    /// Nothing.
    Clean,
    /// Paint cells inside the rectangle (and any small field).
    Cells(CellRect),
    /// Anything.
    All,
}

impl Stale {
    fn plus(self, changed: Option<CellRect>) -> Self {
        match (self, changed) {
            (Self::All, _) | (_, None) => Self::All,
            (Self::Clean, Some(r)) => Self::Cells(r),
            (Self::Cells(a), Some(r)) => Self::Cells(a.union(&r)),
        }
    }
}

#[derive(Debug)]
struct Copy {
    document: Arc<MapDocument>,
    stale: Stale,
}

/// The shared copies and how often the whole paint had to be copied.
#[derive(Debug, Default)]
pub struct SharedDocument {
    copies: Vec<Copy>,
    /// How many times a whole copy or a whole paint layer was copied (a new copy, a layer
    /// added, removed or retargeted, or a change of anything).
    pub full_copies: u64,
}

/// Whether `b` can be brought up to `a` by copying changed cells (same target, side file
/// and size).
fn same_layer(a: &PaintLayer, b: &PaintLayer) -> bool {
    a.target == b.target && a.file == b.file && a.cells.len() == b.cells.len()
}

/// Copies every field but the paint cells (all small).
fn copy_settings(to: &mut MapDocument, from: &MapDocument) {
    // Listed in full so a new document field cannot be forgotten here.
    let MapDocument {
        version,
        name,
        heightmap,
        cell_size_m,
        height_scale_m,
        height_base_m,
        water_level_m,
        sector_size,
        movement_types,
        paint: _,
        stamps,
        links,
    } = from;
    to.version = *version;
    to.name.clone_from(name);
    to.heightmap.clone_from(heightmap);
    to.cell_size_m = *cell_size_m;
    to.height_scale_m = *height_scale_m;
    to.height_base_m = *height_base_m;
    to.water_level_m = *water_level_m;
    to.sector_size = *sector_size;
    to.movement_types.clone_from(movement_types);
    to.stamps.clone_from(stamps);
    to.links.clone_from(links);
}

/// Brings `copy` up to `document`; returns whether a whole layer was copied (a layer added,
/// removed, retargeted, or `stale` says anything changed).
fn update(copy: &mut MapDocument, document: &MapDocument, stale: Stale, width: u32) -> bool {
    copy_settings(copy, document);
    let mut whole = copy.paint.len() != document.paint.len();
    copy.paint.truncate(document.paint.len());
    for (i, from) in document.paint.iter().enumerate() {
        let Some(to) = copy.paint.get_mut(i) else {
            copy.paint.push(from.clone());
            whole = true;
            continue;
        };
        let rect = match stale {
            _ if !same_layer(to, from) => None,
            Stale::Clean => continue,
            Stale::Cells(rect) => Some(rect),
            Stale::All => None,
        };
        let Some(rect) = rect else {
            // Same length: the cells are copied into the existing allocation.
            to.target.clone_from(&from.target);
            to.file.clone_from(&from.file);
            to.cells.clone_from(&from.cells);
            whole = true;
            continue;
        };
        let (w, x0) = (width as usize, rect.x0 as usize);
        let x1 = (rect.x1 as usize).min(w);
        for y in rect.y0 as usize..rect.y1 as usize {
            let row = y * w + x0..y * w + x1;
            if let (Some(d), Some(s)) = (to.cells.get_mut(row.clone()), from.cells.get(row)) {
                d.copy_from_slice(s);
            }
        }
    }
    whole
}

impl SharedDocument {
    /// Forgets the copies (another map was opened).
    pub fn reset(&mut self) {
        self.copies.clear();
    }

    /// The document as it is now, shared. `changed` holds every paint cell that changed
    /// since the previous call (`None`: anything may have changed); `width` is the map's
    /// width in cells.
    pub fn sync(
        &mut self,
        document: &MapDocument,
        changed: Option<CellRect>,
        width: u32,
    ) -> Arc<MapDocument> {
        for copy in &mut self.copies {
            copy.stale = copy.stale.plus(changed);
        }
        for copy in &mut self.copies {
            if let Some(doc) = Arc::get_mut(&mut copy.document) {
                if update(doc, document, copy.stale, width) {
                    self.full_copies += 1;
                }
                copy.stale = Stale::Clean;
                return Arc::clone(&copy.document);
            }
        }
        // Every copy is in use: a new one.
        self.full_copies += 1;
        let fresh = Arc::new(document.clone());
        if self.copies.len() < MAX_COPIES {
            self.copies.push(Copy {
                document: Arc::clone(&fresh),
                stale: Stale::Clean,
            });
        }
        fresh
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::map::{PaintCell, PaintForce, PaintTarget};

    fn doc_with_paint(w: u32, h: u32) -> MapDocument {
        let mut doc = crate::app::model::test_document(crate::map::default_movement_types());
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells: vec![PaintCell::default(); (w * h) as usize],
        });
        doc
    }

    #[test]
    fn rect_updates_match_the_document_and_never_touch_a_copy_in_use() {
        let (w, h) = (12, 9);
        let mut doc = doc_with_paint(w, h);
        let mut shared = SharedDocument::default();
        let first = shared.sync(&doc, None, w);
        assert_eq!(*first, doc);
        // The bake thread still holds `first`: an edit must give a new copy, `first` kept.
        doc.paint[0].cells[3 * 12 + 4].delta = 17;
        let second = shared.sync(&doc, Some(CellRect::cell(4, 3)), w);
        assert_eq!(*second, doc);
        assert_eq!(first.paint[0].cells[3 * 12 + 4].delta, 0);
        assert_eq!(shared.full_copies, 2);
        drop((first, second));
        // Released: updated in place, only the changed rect copied (a cell outside the
        // rect that changed would stay stale — the caller reports every change).
        doc.paint[0].cells[5 * 12 + 10].force = PaintForce::Wall;
        doc.paint[0].cells[6 * 12 + 11].delta = -3;
        doc.movement_types[0].max_slope_deg = 12.0;
        let third = shared.sync(
            &doc,
            Some(CellRect {
                x0: 10,
                y0: 5,
                x1: 12,
                y1: 7,
            }),
            w,
        );
        assert_eq!(*third, doc);
        assert_eq!(shared.full_copies, 2, "updated in place");
        drop(third);
        doc.paint[0].cells[0].delta = 5;
        let stale = shared.sync(&doc, Some(CellRect::cell(11, 8)), w);
        assert_eq!(
            stale.paint[0].cells[0].delta, 0,
            "only the given rect is copied"
        );
        let kept = stale.paint[0].cells.as_ptr();
        drop(stale);
        // A new layer (first stroke for a type) is copied whole, the others by the rect.
        doc.paint.push(PaintLayer {
            target: PaintTarget::Type("land".to_owned()),
            file: "t.paint.land.png".to_owned(),
            cells: vec![PaintCell::default(); (w * h) as usize],
        });
        let fourth = shared.sync(&doc, Some(CellRect::cell(0, 0)), w);
        assert_eq!(*fourth, doc);
        assert_eq!(
            fourth.paint[0].cells.as_ptr(),
            kept,
            "the unchanged layer stays in place"
        );
        // Copies 1 and 2 both had the new layer to take: one of them now, one later.
        let full = shared.full_copies;
        assert_eq!(full, 3);
        drop(fourth);
        // Two holders at once (a bake and an autosave): each copy only takes what changed
        // since it was last brought up to date — here the copy held meanwhile missed an
        // edit that the next call does not mention, and must still get it.
        let held = shared.sync(&doc, None, w);
        doc.paint[1].cells[2 * 12 + 2].delta = 9;
        let other = shared.sync(&doc, Some(CellRect::cell(2, 2)), w);
        assert_eq!(*other, doc);
        assert_eq!(
            held.paint[1].cells[2 * 12 + 2].delta,
            0,
            "held copy untouched"
        );
        drop(held);
        doc.paint[1].cells[7 * 12 + 7].delta = 1;
        // `other` is still held: the free copy is `held`'s, stale by both edits.
        let next = shared.sync(&doc, Some(CellRect::cell(7, 7)), w);
        assert_eq!(*next, doc);
        assert!(!Arc::ptr_eq(&next, &other));
        assert!(shared.copies.len() <= MAX_COPIES);
    }
}
