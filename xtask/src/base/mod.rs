//! The shared parts on the ground floor, which every task may use and which use no task: running
//! commands ([`process`], [`capture`]), files and scratch folders ([`files`], [`scratch`]),
//! cargo's JSON messages ([`cargo_json`]), the version list ([`versions`]), the fetched test
//! dependencies and their environment ([`deps`]), the driver library a build links and runs on
//! ([`driver`]), the example programs ([`examples`]), the bindings' generator ([`generator`]), the
//! pinned crate files ([`pinned_crate`]), the dependents' outcomes ([`outcomes`]), headings and
//! times ([`steps`]), rustup ([`rustup`]), libtest's output ([`libtest`]), medians ([`median`]),
//! what a binary links dynamically ([`elf`]), the driver functions the bindings declare
//! ([`prototypes`]), which of them the dropper may drop ([`droppable`]), and a task's [`Result`].

pub mod args;
pub mod capture;
pub mod cargo_json;
pub mod deps;
pub mod driver;
pub mod droppable;
pub mod elf;
pub mod examples;
pub mod files;
pub mod generator;
pub mod libtest;
pub mod median;
pub mod outcomes;
pub mod pinned_crate;
pub mod process;
pub mod prototypes;
pub mod rustup;
pub mod scratch;
pub mod steps;
pub mod versions;

/// A task's result; its error is one line for the user.
pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;
