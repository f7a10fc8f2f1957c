//! Shared by the package fuzz targets (included with `#[path]`, not a target itself).

use navstudio::package::HEADER_LEN;

/// Most mutations break a checksum and stop there. Re-sealed — every chunk's CRC-32 set to
/// its bytes' and the manifest's CRC-32 to its text's — they reach the JSON, the chunk index
/// and the decoders. The manifest keeps its length (padded with JSON whitespace) so the
/// offsets it holds still point where they did.
pub fn reseal(data: &[u8]) -> Option<Vec<u8>> {
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
