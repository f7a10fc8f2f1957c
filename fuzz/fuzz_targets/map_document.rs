//! The map document parser (RON → `MapDocument`, version probe first) and its validation on
//! arbitrary text. A document that parses and validates must survive the save format
//! (pretty RON) unchanged.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navstudio::map::MapDocument;
use navstudio::map::io::parse_document;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.ron");
    let Ok(doc) = parse_document(text, path) else {
        return;
    };
    if doc.validate_at(path).is_err() {
        return;
    }
    let saved = ron::ser::to_string_pretty(&doc, ron::ser::PrettyConfig::default())
        .expect("a valid document serialises");
    let back: MapDocument = parse_document(&saved, path).expect("a saved document parses");
    assert!(
        back == doc,
        "document changed through save and load:\n{saved}"
    );
});
