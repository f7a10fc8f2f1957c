//! Files: the exported package reads back as the shown bake, autosave and crash recovery,
//! nav packages opened read-only (or refused when damaged), and maps wider than a GPU
//! texture.

use super::*;

#[test]
fn exported_package_reads_back_as_the_shown_bake() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    let out = dir.path().join("bands.navpkg");
    harness.state_mut().export_package(&out);
    let pkg = navstudio::package::read(&out).unwrap();
    let app = harness.state();
    let nav = app.state.nav.as_ref().unwrap();
    assert_eq!(pkg.nav.layers.len(), 3);
    for (read, shown) in pkg.nav.layers.iter().zip(&nav.layers) {
        assert_eq!(read.name, shown.name);
        assert!(read.cost == shown.cost, "{}: costs", read.name);
        assert!(read.islands == shown.islands, "{}: islands", read.name);
    }
    assert_eq!(pkg.manifest.map_name, "bands");
}

#[test]
fn autosave_survives_a_lost_session_and_restores_unsaved_paint() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let ron = dir.path().join("bands.ron");
    let new = navstudio::app::backend::new_map_from_heightmap(&png).unwrap();
    navstudio::app::backend::save_map(&ron, &new.document, &new.heightmap).unwrap();

    // Session 1: paint a stroke, autosave, then "crash" (drop without saving).
    {
        let mut harness = harness(App::new(Some(&ron)).unwrap());
        wait_baked(&mut harness);
        assert!(harness.state().recovery_offer().is_none());
        harness.get_by_label("Paint").click();
        harness.step();
        drag_cells(&mut harness, (4.5, 24.5), (14.5, 24.5));
        assert!(harness.state().state.is_modified());
        harness.state_mut().autosave_now();
        assert!(navstudio::app::autosave::recovery_path(&ron).exists());
    }
    // The map on disk is still the unpainted one.
    let on_disk = navstudio::map::load_map(&ron).unwrap();
    assert!(on_disk.document.paint.is_empty());

    // Session 2: the recovery copy is offered and restores the stroke, unsaved.
    let mut harness = harness(App::new(Some(&ron)).unwrap());
    assert!(harness.state().recovery_offer().is_some());
    harness.state_mut().restore_recovery();
    let app = harness.state();
    let doc = &app.state.map.as_ref().unwrap().document;
    assert_eq!(doc.paint.len(), 1);
    for x in 4..=14 {
        assert_eq!(
            doc.paint[0].cells[(24 * W + x) as usize].delta,
            40,
            "cell ({x}, 24)"
        );
    }
    assert!(
        app.state.is_modified(),
        "restored changes still need a save"
    );
    assert_eq!(
        app.state.map.as_ref().unwrap().path.as_deref(),
        Some(ron.as_path())
    );

    // Saving writes the map and removes the recovery copy.
    harness
        .state_mut()
        .request(navstudio::app::FileAction::Save);
    assert!(!harness.state().state.is_modified());
    assert!(!navstudio::app::autosave::recovery_path(&ron).exists());
    let saved = navstudio::map::load_map(&ron).unwrap();
    assert_eq!(saved.document.paint.len(), 1);
    drop(harness);
    let again = App::new(Some(&ron)).unwrap();
    assert!(again.recovery_offer().is_none(), "nothing left to recover");
}

#[test]
fn never_saved_map_is_autosaved_to_the_data_folder_and_offered_on_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let root = dir.path().join("data").join("recovery");
    let copy = navstudio::app::autosave::untitled_recovery_path(&root);

    // Session 1: a new map from a heightmap, never saved; paint, autosave, "crash".
    {
        let mut app = new_map_app(&png);
        app.set_recovery_root(root.clone());
        let mut harness = harness(app);
        wait_baked(&mut harness);
        assert!(harness.state().recovery_offer().is_none());
        assert!(harness.state().state.map.as_ref().unwrap().path.is_none());
        pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
        drag_cells(&mut harness, (4.5, 24.5), (14.5, 24.5));
        harness.state_mut().autosave_now();
        assert!(copy.exists(), "autosaved to {}", copy.display());
    }
    // Nothing was written beside the heightmap.
    assert!(!dir.path().join(".bands.recovery").exists());

    // Session 2: a plain start offers the copy; Restore opens it as a never-saved map.
    let mut app = App::new(None).unwrap();
    app.set_recovery_root(root.clone());
    assert!(app.recovery_is_untitled());
    let mut harness = harness(app);
    harness.step();
    harness.get_by_label("Restore").click();
    harness.step();
    let app = harness.state();
    let map = app.state.map.as_ref().unwrap();
    assert!(map.path.is_none(), "still never saved");
    assert!(app.state.is_modified());
    assert_eq!(map.document.paint.len(), 1);
    for x in 4..=14 {
        assert_eq!(map.document.paint[0].cells[(24 * W + x) as usize].delta, 40);
    }
    // The copy stays until the map is saved: a second crash would still find it.
    assert!(copy.exists());
    let ron = dir.path().join("rescued.ron");
    harness.state_mut().save_as(&ron);
    assert!(!harness.state().state.is_modified());
    assert!(!copy.exists(), "saving removes the recovery copy");
    let saved = navstudio::map::load_map(&ron).unwrap();
    assert_eq!(saved.document.paint[0].file, "rescued.paint0.png");
    drop(harness);

    let mut again = App::new(None).unwrap();
    again.set_recovery_root(root);
    assert!(again.recovery_offer().is_none(), "nothing left to recover");
}

#[test]
fn a_nav_package_opens_read_only_with_its_costs_and_a_working_goal_tool() {
    let (dir, mut baked) = baked_bands();
    let pkg = dir.path().join("bands.navpkg");
    baked.state_mut().export_package(&pkg);
    let original = baked.state();
    let land_walls = original.state.baked.as_ref().unwrap().types[0].wall_count;
    assert_eq!(land_walls, expected_walls(35.0), "oracle for the baked map");

    let mut harness = harness(App::new(Some(&pkg)).unwrap());
    harness.step();
    let app = harness.state();
    assert_eq!(app.error_message(), None);
    assert_eq!(app.state.read_only.as_deref(), Some(pkg.as_path()));
    assert!(app.state.title().contains("bands.navpkg (read-only)"));
    let shown = app.state.baked.as_ref().unwrap();
    let doc = &app.state.map.as_ref().unwrap().document;
    // The package's own costs and movement types, nothing re-baked from flat heights.
    for (k, t) in original
        .state
        .baked
        .as_ref()
        .unwrap()
        .types
        .iter()
        .enumerate()
    {
        assert_eq!(shown.types[k].name, t.name);
        assert!(
            shown.types[k].final_cost == t.final_cost,
            "{}: costs",
            t.name
        );
        let recorded = &original.state.map.as_ref().unwrap().document.movement_types[k];
        assert_eq!(&doc.movement_types[k], recorded);
    }
    assert_eq!(shown.types[0].wall_count, land_walls);
    assert!(!app.bake_in_flight(), "a package is never re-baked");

    // Editing tools are off, by button and by shortcut.
    harness
        .get_by_label(navstudio::app::tools::Tool::Paint.label())
        .click();
    harness.step();
    harness.key_press(Key::S);
    harness.step();
    assert_eq!(
        harness.state().tools.active(),
        navstudio::app::tools::Tool::Inspect
    );

    // The goal tool runs on the package's nav data as on the bake it came from.
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    harness.drag_at(screen_of(&harness, 5.5, 24.5));
    harness.drop_at(screen_of(&harness, 5.5, 24.5));
    settle_goal(&mut harness);
    let r = harness
        .state()
        .goal_preview
        .result
        .as_ref()
        .expect("a preview");
    let at = |x: u32, y: u32| (y * W + x) as usize;
    assert_eq!(r.heat[at(5, 24)], 0);
    assert_eq!(r.heat[at(6, 24)], 1);
    assert_eq!(
        r.heat[at(50, 10)],
        navstudio::nav::integrate::UNREACHED,
        "the steep band is a wall for land in the package too"
    );

    // Saving is refused with one sentence; nothing is written.
    harness
        .state_mut()
        .request(navstudio::app::FileAction::Save);
    let message = harness.state().error_message().unwrap().to_owned();
    assert!(message.contains("read-only"), "{message}");
    assert!(!dir.path().join("bands.ron").exists());
    assert!(!harness.state().bake_in_flight());

    // Opening a map again leaves the package view: editable, heights shown, baked anew.
    let png = dir.path().join("bands.png");
    harness.state_mut().open_path(&png);
    assert!(harness.state_mut().confirm_new_map());
    wait_baked(&mut harness);
    let app = harness.state();
    assert!(app.state.read_only.is_none());
    assert!(app.state.overlays.height);
    assert!(navstudio::app::tools::Tools::available(
        navstudio::app::tools::Tool::Paint,
        &app.state
    ));
    assert_eq!(
        app.state.baked.as_ref().unwrap().types[0].wall_count,
        land_walls
    );
}

#[test]
fn a_damaged_nav_package_is_refused_and_the_open_map_stays() {
    let (dir, mut harness) = baked_bands();
    let pkg = dir.path().join("bands.navpkg");
    harness.state_mut().export_package(&pkg);
    let bytes = std::fs::read(&pkg).unwrap();
    let bad = dir.path().join("cut.navpkg");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    harness.state_mut().open_path(&bad);
    harness.step();
    let app = harness.state();
    let message = app.error_message().expect("an error message");
    assert!(message.contains("cut.navpkg"), "{message}");
    assert!(app.state.read_only.is_none());
    assert_eq!(app.state.map.as_ref().unwrap().document.name, "bands");
    assert!(app.state.baked.is_some());
}

#[test]
fn a_map_wider_than_a_gpu_texture_opens_with_its_overlays_in_tiles() {
    // 16,384 cells a side is the format's limit; many GPUs (and wgpu's default limits)
    // refuse a texture wider than 8192, so one texture per overlay crashed the editor.
    const GPU_LIMIT: usize = 8192;
    let (w, h) = (16_384u32, 12u32);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("wide.png");
    image::ImageBuffer::from_fn(w, h, |x, y| image::Luma([((x / 7 + y) % 200) as u8]))
        .save(&png)
        .unwrap();
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    settle(&mut harness);
    let overlay_texels = |harness: &Harness<'_, App>| {
        let textures = harness.ctx.tex_manager();
        let textures = textures.read();
        let mut texels = std::collections::BTreeMap::<String, usize>::new();
        for (_, meta) in textures.allocated() {
            let [tw, th] = meta.size;
            assert!(
                tw <= GPU_LIMIT && th <= GPU_LIMIT,
                "texture {:?} is {tw}×{th}",
                meta.name
            );
            if let Some(overlay) = meta.name.strip_prefix("overlay-") {
                let overlay = overlay.split(' ').next().unwrap_or(overlay).to_owned();
                *texels.entry(overlay).or_default() += tw * th;
            }
        }
        texels
    };
    let overlay_texels_now = overlay_texels(&harness);
    // Every overlay shown covers the whole map, once; the hidden ones (slope, wall buffer
    // and blur) take no texture until shown, and then cover it too.
    let covers = |texels: &std::collections::BTreeMap<String, usize>, overlay: &str| {
        texels.get(overlay).copied() == Some((w * h) as usize)
    };
    let shown = harness.state().state.overlays;
    assert!(!shown.slope && !shown.contributions);
    for overlay in ["height", "cost", "walls"] {
        assert!(
            covers(&overlay_texels_now, overlay),
            "{overlay}: {overlay_texels_now:?}"
        );
    }
    for overlay in ["slope", "contribution"] {
        assert!(
            !overlay_texels_now.contains_key(overlay),
            "{overlay_texels_now:?}"
        );
    }
    harness.state_mut().state.overlays.slope = true;
    harness.state_mut().state.overlays.contributions = true;
    settle(&mut harness);
    let texels = overlay_texels(&harness);
    for overlay in ["height", "slope", "cost", "walls", "contribution"] {
        assert!(covers(&texels, overlay), "{overlay}: {texels:?}");
    }
}

#[test]
fn a_new_map_is_unsaved_until_saved_so_quit_asks_and_the_autosave_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let root = dir.path().join("data").join("recovery");
    let copy = navstudio::app::autosave::untitled_recovery_path(&root);

    let mut app = new_map_app(&png);
    app.set_recovery_root(root);
    let mut harness = harness(app);
    wait_baked(&mut harness);
    // Nothing edited yet: still unsaved, and the title says so.
    assert!(
        harness.state().state.is_modified(),
        "a never-saved map counts as unsaved"
    );
    assert!(
        harness.state().state.title().contains(" *"),
        "{}",
        harness.state().state.title()
    );

    // Quit asks, and Cancel keeps the map.
    harness
        .state_mut()
        .request(navstudio::app::FileAction::Quit);
    harness.step();
    harness.step();
    harness.get_by_label("Unsaved changes");
    harness.get_by_label("Discard");
    // The modal's Cancel is drawn last (the Bake panel has a Cancel of its own).
    harness.get_all_by_label("Cancel").last().unwrap().click();
    harness.step();
    harness.step();
    assert!(harness.query_by_label("Unsaved changes").is_none());
    assert!(harness.state().state.map.is_some());

    // The autosave covers it without an edit.
    harness.state_mut().autosave_now();
    assert!(
        copy.exists(),
        "an untitled map is autosaved to {}",
        copy.display()
    );

    // Saved: no longer unsaved, and Quit goes without asking.
    let ron = dir.path().join("kept.ron");
    harness.state_mut().save_as(&ron);
    assert!(!harness.state().state.is_modified());
    assert!(!harness.state().state.title().contains(" *"));
}
