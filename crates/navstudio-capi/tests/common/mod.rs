//! What the C API tests share: a random map made into package bytes with the Rust writer,
//! and a thin safe wrapper over the C functions (what a Rust caller of the C API would
//! write), so each test reads as calls, not pointer plumbing.

#![allow(dead_code, reason = "each test binary uses part of it")]

use std::ffi::CStr;

use navstudio_capi::*;
use navstudio_nav::package::{self, PackageMeta};
use navstudio_nav::{CostField, GridSpec, NavData, build_layer};

/// The run time's seeded generator, under the name the tests use.
pub use navstudio_nav::rng::SplitMix64 as Rng;

/// A `w × h` map with two movement types: "land" (wall blocks, costs 1..=12) and "hover"
/// (half the walls); sectors of 16.
pub fn random_nav(seed: u64, w: u32, h: u32) -> NavData {
    let mut rng = Rng::new(seed);
    let mut land = vec![1u8; (w * h) as usize];
    for c in &mut land {
        if rng.below(4) == 0 {
            *c = 1 + rng.below(12) as u8;
        }
    }
    let mut hover = land.clone();
    for k in 0..(w * h / 150) {
        let (x0, y0) = (rng.below(w), rng.below(h));
        let (bw, bh) = (1 + rng.below(12), 1 + rng.below(4));
        let (bw, bh) = if k % 2 == 0 { (bw, bh) } else { (bh, bw) };
        for y in y0..(y0 + bh).min(h) {
            for x in x0..(x0 + bw).min(w) {
                land[(y * w + x) as usize] = 255;
                if k % 2 == 0 {
                    hover[(y * w + x) as usize] = 255;
                }
            }
        }
    }
    let spec = GridSpec {
        width: w,
        height: h,
        sector_size: 16,
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let layers = [("land", land), ("hover", hover)]
        .into_iter()
        .map(|(name, cells)| {
            build_layer(name, CostField::from_cells(spec, &cells), &|_| {}, &cancel)
                .unwrap_or_else(|| panic!("layer {name} not built"))
        })
        .collect();
    NavData::new(spec, 1.0, layers)
}

/// The package bytes of `nav`, from the Rust writer.
pub fn package_bytes(nav: &NavData) -> Vec<u8> {
    package::to_bytes(
        nav,
        &PackageMeta {
            map_name: "capi-test".to_owned(),
            ..PackageMeta::default()
        },
    )
}

/// The thread's last error as a Rust string.
pub fn last_error() -> String {
    // SAFETY: never null, NUL-terminated, valid until the next call on this thread.
    unsafe { CStr::from_ptr(navstudio_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `Ok` or the status with the last error.
pub fn ok(status: NavstudioStatus) -> Result<(), (NavstudioStatus, String)> {
    if status == NavstudioStatus::Ok {
        Ok(())
    } else {
        Err((status, last_error()))
    }
}

/// A world handle, freed on drop.
pub struct World(pub *mut NavstudioWorld);

/// A traced path: length and cells.
pub type Trace = (f64, Vec<(u32, u32)>);

impl World {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, (NavstudioStatus, String)> {
        let mut w = std::ptr::null_mut();
        // SAFETY: `bytes` is a live slice; `w` a writable pointer slot.
        ok(unsafe { navstudio_world_open_bytes(bytes.as_ptr(), bytes.len(), &raw mut w) })?;
        Ok(Self(w))
    }

    /// `navstudio_world_open` on a file (streamed).
    pub fn open(path: &std::path::Path) -> Result<Self, (NavstudioStatus, String)> {
        let path = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap_or_default();
        let mut w = std::ptr::null_mut();
        // SAFETY: NUL-terminated path; `w` a writable pointer slot.
        ok(unsafe { navstudio_capi::navstudio_world_open(path.as_ptr(), &raw mut w) })?;
        Ok(Self(w))
    }

    pub fn move_type(&self, name: &str) -> Result<u32, (NavstudioStatus, String)> {
        let c = std::ffi::CString::new(name).unwrap_or_default();
        let mut i = u32::MAX;
        // SAFETY: live handle, NUL-terminated name, writable out.
        ok(unsafe { navstudio_movement_type_index(self.0, c.as_ptr(), &raw mut i) })?;
        Ok(i)
    }

    pub fn request(
        &mut self,
        layer: u32,
        sources: &[(u32, u32)],
        goal: (u32, u32),
    ) -> Result<u32, (NavstudioStatus, String)> {
        let cells: Vec<NavstudioCell> = sources
            .iter()
            .map(|&(x, y)| NavstudioCell { x, y })
            .collect();
        let mut path = u32::MAX;
        // SAFETY: live handle, `cells` live for the call, writable out.
        ok(unsafe {
            navstudio_request_path(
                self.0,
                layer,
                cells.as_ptr(),
                cells.len(),
                NavstudioCell {
                    x: goal.0,
                    y: goal.1,
                },
                &raw mut path,
            )
        })?;
        Ok(path)
    }

    pub fn request_to_any(
        &mut self,
        layer: u32,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<u32, (NavstudioStatus, String)> {
        let cells = |list: &[(u32, u32)]| -> Vec<NavstudioCell> {
            list.iter().map(|&(x, y)| NavstudioCell { x, y }).collect()
        };
        let (sources, goals) = (cells(sources), cells(goals));
        let mut path = u32::MAX;
        // SAFETY: live handle, both arrays live for the call, writable out.
        ok(unsafe {
            navstudio_request_path_to_any(
                self.0,
                layer,
                sources.as_ptr(),
                sources.len(),
                goals.as_ptr(),
                goals.len(),
                &raw mut path,
            )
        })?;
        Ok(path)
    }

    pub fn release(&mut self, path: u32) -> Result<(), (NavstudioStatus, String)> {
        // SAFETY: live handle.
        ok(unsafe { navstudio_path_release(self.0, path) })
    }

    pub fn trace(&self, path: u32, from: (u32, u32)) -> Result<Trace, (NavstudioStatus, String)> {
        let (mut length, mut count) = (0.0, 0usize);
        let source = NavstudioCell {
            x: from.0,
            y: from.1,
        };
        // SAFETY: live handle; NULL cells with capacity 0 asks for the count only.
        ok(unsafe {
            navstudio_trace_path(
                self.0,
                path,
                source,
                &raw mut length,
                std::ptr::null_mut(),
                0,
                &raw mut count,
            )
        })?;
        let mut cells = vec![NavstudioCell::default(); count];
        // SAFETY: live handle; `cells` holds `count` writable cells.
        ok(unsafe {
            navstudio_trace_path(
                self.0,
                path,
                source,
                &raw mut length,
                cells.as_mut_ptr(),
                cells.len(),
                &raw mut count,
            )
        })?;
        Ok((length, cells.iter().map(|c| (c.x, c.y)).collect()))
    }

    /// One trace into a buffer the caller keeps (as a game would): length and cell count.
    pub fn trace_into(
        &self,
        path: u32,
        from: (u32, u32),
        buf: &mut [NavstudioCell],
    ) -> Result<(f64, usize), (NavstudioStatus, String)> {
        let (mut length, mut count) = (0.0, 0usize);
        let source = NavstudioCell {
            x: from.0,
            y: from.1,
        };
        // SAFETY: live handle; `buf` holds `buf.len()` writable cells.
        ok(unsafe {
            navstudio_trace_path(
                self.0,
                path,
                source,
                &raw mut length,
                buf.as_mut_ptr(),
                buf.len(),
                &raw mut count,
            )
        })?;
        Ok((length, count))
    }

    pub fn sample(&self, path: u32, pos: (f32, f32)) -> Result<(f32, f32), NavstudioStatus> {
        let mut d = NavstudioVec2::default();
        let p = NavstudioVec2 { x: pos.0, y: pos.1 };
        // SAFETY: live handle, writable out.
        let s = unsafe { navstudio_sample_flow(self.0, path, p, &raw mut d) };
        if s == NavstudioStatus::Ok {
            Ok((d.x, d.y))
        } else {
            Err(s)
        }
    }

    pub fn steer(&self, path: u32, pos: (f32, f32)) -> Result<(f32, f32), NavstudioStatus> {
        let mut d = NavstudioVec2::default();
        let p = NavstudioVec2 { x: pos.0, y: pos.1 };
        // SAFETY: live handle, writable out.
        let s = unsafe { navstudio_steer_target(self.0, path, p, &raw mut d) };
        if s == NavstudioStatus::Ok {
            Ok((d.x, d.y))
        } else {
            Err(s)
        }
    }

    pub fn line_of_sight(&self, path: u32, cell: (u32, u32)) -> bool {
        let mut seen = false;
        let c = NavstudioCell {
            x: cell.0,
            y: cell.1,
        };
        // SAFETY: live handle, writable out.
        let s = unsafe { navstudio_line_of_sight(self.0, path, c, &raw mut seen) };
        s == NavstudioStatus::Ok && seen
    }

    pub fn stamp(
        &mut self,
        layers: &[u32],
        rect: (u32, u32, u32, u32),
        costs: &[u8],
    ) -> Result<u32, (NavstudioStatus, String)> {
        let mut handle = u32::MAX;
        let r = NavstudioRect {
            x: rect.0,
            y: rect.1,
            width: rect.2,
            height: rect.3,
        };
        // SAFETY: live handle; both arrays live for the call; writable out.
        ok(unsafe {
            navstudio_apply_stamp(
                self.0,
                layers.as_ptr(),
                layers.len(),
                r,
                costs.as_ptr(),
                costs.len(),
                &raw mut handle,
            )
        })?;
        Ok(handle)
    }

    /// Moves a path's goal; `Ok(true)` when the route was queued for a re-plan.
    pub fn move_goal(
        &mut self,
        path: u32,
        goal: (u32, u32),
    ) -> Result<bool, (NavstudioStatus, String)> {
        let mut queued = 7_u8;
        let goal = NavstudioCell {
            x: goal.0,
            y: goal.1,
        };
        // SAFETY: live handle, writable out.
        ok(unsafe { navstudio_move_goal(self.0, path, goal, &raw mut queued) })?;
        Ok(queued == 1)
    }

    /// Adds sources to a path; returns how many were added.
    pub fn add_sources(
        &mut self,
        path: u32,
        sources: &[(u32, u32)],
    ) -> Result<u32, (NavstudioStatus, String)> {
        let cells: Vec<NavstudioCell> = sources
            .iter()
            .map(|&(x, y)| NavstudioCell { x, y })
            .collect();
        let mut added = u32::MAX;
        // SAFETY: live handle, the array lives for the call, writable out.
        ok(unsafe {
            navstudio_add_sources(self.0, path, cells.as_ptr(), cells.len(), &raw mut added)
        })?;
        Ok(added)
    }

    /// Drains the rebuild queue; returns the calls it took.
    pub fn rebuild_all(&mut self, budget_us: u64) -> u32 {
        let mut calls = 0;
        loop {
            let mut done = false;
            calls += 1;
            // SAFETY: live handle, writable out.
            let s = unsafe { navstudio_rebuild(self.0, budget_us, &raw mut done) };
            assert_eq!(s, NavstudioStatus::Ok, "{}", last_error());
            if done {
                return calls;
            }
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // SAFETY: the handle came from `navstudio_world_open_bytes` and is freed once.
        unsafe { navstudio_world_free(self.0) };
    }
}
