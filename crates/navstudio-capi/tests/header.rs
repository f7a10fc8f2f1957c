//! The committed header is what cbindgen makes of the crate now: a changed signature or doc
//! comment without a regenerated header fails here. `NAVSTUDIO_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen: {e}"));
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).unwrap_or_else(|e| panic!("header not UTF-8: {e}"));
    let path = crate_dir.join("include/navstudio.h");
    if std::env::var_os("NAVSTUDIO_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run `NAVSTUDIO_BLESS=1 cargo test -p navstudio-capi --test header` and commit it",
        path.display()
    );
}
