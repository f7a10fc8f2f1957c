//! The `navstudio` command: with no subcommand it opens the editor on the default map;
//! subcommands run the same library headless (validate, generate, bake, info, export, path …).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
