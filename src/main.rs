//! The `navstudio` command: with no subcommand it opens the editor on the default map (or on
//! the file given); subcommands run the same library headless (validate, new, bake, info,
//! export, path …).

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// The exit status of a process a closed pipe stopped (128 + SIGPIPE), as shells report it.
const EXIT_CLOSED_PIPE: i32 = 141;

fn main() -> ExitCode {
    end_quietly_on_closed_pipe();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `navstudio info X | head` closes stdout early. Rust ignores SIGPIPE, so the next
/// `println!` panics with "failed printing to stdout: Broken pipe"; the prints live in every
/// subcommand, so rather than thread a writer through each, this hook turns exactly that
/// panic into the quiet exit a SIGPIPE would have given. Every other panic is reported as
/// usual.
fn end_quietly_on_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(EXIT_CLOSED_PIPE);
        }
        report(info);
    }));
}
