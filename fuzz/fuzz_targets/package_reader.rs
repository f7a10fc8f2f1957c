//! The nav package reader on arbitrary bytes: a typed error or a package; a package that
//! reads must write back to bytes that read as the same navigation data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navstudio::package::{self, HEADER_LEN, PackageMeta};

fn check(bytes: &[u8]) {
    if let Ok(pkg) = package::from_bytes(bytes) {
        let again = package::to_bytes(&pkg.nav, &PackageMeta::default());
        let reread = package::from_bytes(&again).expect("a package we wrote must read back");
        assert!(
            reread.nav == pkg.nav,
            "re-encoded package reads differently"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // Most mutations break the header's payload length or checksum and stop there;
    // re-sealed with correct ones they reach the manifest, section table and decoders.
    if data.len() >= HEADER_LEN {
        let mut sealed = data.to_vec();
        let payload_len = (sealed.len() - HEADER_LEN) as u64;
        sealed[24..32].copy_from_slice(&payload_len.to_le_bytes());
        let crc = crc32fast::hash(&sealed[HEADER_LEN..]);
        sealed[32..36].copy_from_slice(&crc.to_le_bytes());
        check(&sealed);
    }
});
