//! Work off the UI thread that belongs to no worker in particular.

/// Frees `value` on a short-lived thread: the previous bake of a 2048² map is hundreds of
/// megabytes in many allocations, too slow to free inside a frame.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    let spawned = std::thread::Builder::new()
        .name("navstudio-drop".to_owned())
        .spawn(move || drop(value));
    // If no thread can start, the value was dropped with the error: freed here, still correct.
    drop(spawned);
}
