//! The nav package reader on arbitrary bytes: a typed error or a package; a package that
//! reads must write back to bytes that read as the same navigation data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navstudio::package::{self, PackageMeta};

fn check(bytes: &[u8]) {
    if let Ok(pkg) = package::from_bytes(bytes) {
        let meta = PackageMeta {
            links: pkg.links.clone(),
            ..PackageMeta::default()
        };
        let again = package::to_bytes(&pkg.nav, &meta);
        let reread = package::from_bytes(&again).expect("a package we wrote must read back");
        assert!(
            reread.nav == pkg.nav && reread.links == pkg.links,
            "re-encoded package reads differently"
        );
    }
}

#[path = "reseal.rs"]
mod reseal;
use reseal::reseal;

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(sealed) = reseal(data) {
        check(&sealed);
    }
});
