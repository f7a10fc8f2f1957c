//! The `links` chunk's bytes (see `docs/package-format.md`): a `u32` count, then one
//! 52-byte little-endian record per link.

use super::{LinkCost, LinkEnd, LinkKind, NavLink, validate_links};

/// Bytes per link record.
pub const RECORD_LEN: usize = 52;

/// Most links a package holds.
pub const MAX_LINKS: usize = 65_536;

/// Encodes links as the `links` chunk's raw bytes.
#[must_use]
pub fn to_bytes(links: &[NavLink]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + RECORD_LEN * links.len());
    out.extend_from_slice(&(links.len() as u32).to_le_bytes());
    for l in links {
        out.extend_from_slice(&l.id.to_le_bytes());
        for e in [l.a, l.b] {
            out.extend_from_slice(&e.x.to_le_bytes());
            out.extend_from_slice(&e.y.to_le_bytes());
            out.extend_from_slice(&(e.w as u16).to_le_bytes());
            out.extend_from_slice(&(e.h as u16).to_le_bytes());
        }
        out.extend_from_slice(&l.types.to_le_bytes());
        out.push(u8::from(l.two_way) | (u8::from(!l.enabled) << 1));
        let (kind, a, b) = match l.kind {
            LinkKind::Walk => (0, 0, 0.0),
            LinkKind::Ride { capacity, period_s } => (1, capacity, period_s),
            LinkKind::Teleport { time_s } => (2, 0, time_s),
            LinkKind::Drop => (3, 0, 0.0),
        };
        let (mode, value) = match l.cost {
            LinkCost::PerMetre(v) => (0, v),
            LinkCost::Direct(c) => (1, c as f32),
            LinkCost::Time(s) => (2, s),
        };
        out.extend_from_slice(&[kind, mode, 0]);
        out.extend_from_slice(&value.to_le_bytes());
        out.extend_from_slice(&l.width_m.to_le_bytes());
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

/// Decodes the `links` chunk of a `width × height` map, checking every field as
/// [`super::NavLink::validate`] does. The error is one phrase naming the record and field.
///
/// # Errors
/// A truncated or overlong chunk, an unknown kind or cost mode, or an invalid link.
pub fn from_bytes(bytes: &[u8], width: u32, height: u32) -> Result<Vec<NavLink>, String> {
    let count = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or("the links chunk is shorter than its count")?;
    let body = &bytes[4..];
    if count > MAX_LINKS {
        return Err(format!(
            "{count} links, more than the {MAX_LINKS} a package holds"
        ));
    }
    if body.len() / RECORD_LEN < count || body.len() != count * RECORD_LEN {
        return Err(format!(
            "the links chunk holds {} bytes for {count} links of {RECORD_LEN} bytes",
            body.len()
        ));
    }
    let mut links = Vec::with_capacity(count);
    for (i, r) in body.chunks_exact(RECORD_LEN).enumerate() {
        let u32_at = |o: usize| u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
        let u16_at = |o: usize| u32::from(u16::from_le_bytes([r[o], r[o + 1]]));
        let f32_at = |o: usize| f32::from_bits(u32_at(o));
        let end = |o: usize| LinkEnd {
            x: u32_at(o),
            y: u32_at(o + 4),
            w: u16_at(o + 8),
            h: u16_at(o + 10),
        };
        let flags = r[32];
        if flags & !3 != 0 || r[35] != 0 {
            return Err(format!("link record {i} has unknown flag bits"));
        }
        let kind = match r[33] {
            0 => LinkKind::Walk,
            1 => LinkKind::Ride {
                capacity: u32_at(44),
                period_s: f32_at(48),
            },
            2 => LinkKind::Teleport { time_s: f32_at(48) },
            3 => LinkKind::Drop,
            k => return Err(format!("link record {i} has unknown kind {k}")),
        };
        let value = f32_at(36);
        let cost = match r[34] {
            0 => LinkCost::PerMetre(value),
            1 if value.is_finite() && (0.0..=(1 << 24) as f32).contains(&value) => {
                LinkCost::Direct(value as u32)
            }
            2 => LinkCost::Time(value),
            m => {
                return Err(format!(
                    "link record {i} has an invalid cost (mode {m}, value {value})"
                ));
            }
        };
        links.push(NavLink {
            id: u32_at(0),
            a: end(4),
            b: end(16),
            types: u32_at(28),
            two_way: flags & 1 != 0,
            enabled: flags & 2 == 0,
            kind,
            cost,
            width_m: f32_at(40),
        });
    }
    validate_links(&links, width, height).map_err(|e| e.to_string())?;
    Ok(links)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn links_round_trip_and_damage_is_an_error() {
        let mut ferry = NavLink::walk(7, (1, 2), (30, 31));
        ferry.kind = LinkKind::Ride {
            capacity: 10,
            period_s: 12.5,
        };
        ferry.b = LinkEnd {
            x: 28,
            y: 30,
            w: 3,
            h: 2,
        };
        ferry.types = 0b101;
        let mut drop = NavLink::walk(8, (5, 5), (5, 9));
        drop.kind = LinkKind::Drop;
        drop.two_way = false;
        drop.enabled = false;
        drop.cost = LinkCost::Direct(3);
        let links = vec![ferry, drop];
        let bytes = to_bytes(&links);
        assert_eq!(bytes.len(), 4 + 2 * RECORD_LEN);
        assert_eq!(from_bytes(&bytes, 40, 40).unwrap(), links);
        // Every truncation and every single-byte change is an error or a valid decode.
        for cut in 0..bytes.len() {
            assert!(from_bytes(&bytes[..cut], 40, 40).is_err());
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xA5;
            let _ = from_bytes(&b, 40, 40);
        }
        // An end off the map is refused.
        assert!(from_bytes(&bytes, 20, 20).is_err());
    }
}
