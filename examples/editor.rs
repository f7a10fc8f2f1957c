//! Opens the editor on a map or heightmap: `cargo run --example editor -- map.ron`.
//! `NAVSTUDIO_SCREENSHOT=shot.png` saves the window once baked and closes it.

fn main() -> std::process::ExitCode {
    match navstudio::app::run_editor(std::env::args_os().nth(1).map(Into::into)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("navstudio: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}
