//! The streaming package reader (`NavWorld::open`) on arbitrary bytes, re-sealed so the
//! decoders see them: a typed error at open or when a region is first used, never a panic,
//! whatever is requested afterwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navstudio::nav::{NavWorld, StreamOptions};
use navstudio::package::HEADER_LEN;

/// As `package_reader.rs`: every checksum set to its bytes' so mutations reach the decoders.
fn reseal(data: &[u8]) -> Option<Vec<u8>> {
    let manifest_len = u32::from_le_bytes(data.get(12..16)?.try_into().ok()?) as usize;
    let text = data.get(HEADER_LEN..HEADER_LEN.checked_add(manifest_len)?)?;
    let mut manifest: serde_json::Value = serde_json::from_slice(text).ok()?;
    for c in manifest.get_mut("chunks")?.as_array_mut()? {
        let at = c.get("offset")?.as_u64()? as usize;
        let len = c.get("stored_len")?.as_u64()? as usize;
        if let Some(stored) = data.get(at..at.checked_add(len)?) {
            c["crc32"] = crc32fast::hash(stored).into();
        }
    }
    let mut new_text = serde_json::to_vec(&manifest).ok()?;
    if new_text.len() > manifest_len {
        return None;
    }
    new_text.resize(manifest_len, b' ');
    let mut sealed = data.to_vec();
    sealed[HEADER_LEN..HEADER_LEN + manifest_len].copy_from_slice(&new_text);
    sealed[16..20].copy_from_slice(&crc32fast::hash(&new_text).to_le_bytes());
    Some(sealed)
}

fn check(bytes: &[u8]) {
    let path = std::env::temp_dir().join(format!("navstudio-fuzz-{}.navpkg", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    // A budget of one byte: every request drops and re-reads regions.
    if let Ok(mut world) = NavWorld::open(&path, StreamOptions { cache_budget: 1 }) {
        let spec = world.nav().spec;
        let step = (16 * spec.sector_size).max(1) as usize;
        for layer in 0..world.nav().layers.len() {
            for y in (0..spec.height).step_by(step) {
                for x in (0..spec.width).step_by(step) {
                    if let Ok(id) = world.request_path(layer, &[(x, y)], (spec.width / 2, spec.height / 2)) {
                        let _ = world.trace_path(id, (x, y));
                        world.release_path(id);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(sealed) = reseal(data) {
        check(&sealed);
    }
});
