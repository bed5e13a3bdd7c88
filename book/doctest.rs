//! The Rust blocks of the book and of the README as doc tests: `cargo test -p shr-book --doc`
//! compiles and runs every ```` ```rust ```` block of the pages listed here (a block that cannot
//! run says why, with `ignore` or `no_run` and a comment). A page with Rust blocks is added to
//! this list; `tests/node/book.test.mjs` fails on one that is missing.
#![forbid(unsafe_code)]

/// `README.md`
#[doc = include_str!("../README.md")]
pub mod readme {}

/// `crates/core/README.md`
#[doc = include_str!("../crates/core/README.md")]
pub mod core_readme {}

/// `book/src/concepts/routing.md`
#[doc = include_str!("src/concepts/routing.md")]
pub mod routing {}

/// `book/src/guides/rust.md`
#[doc = include_str!("src/guides/rust.md")]
pub mod rust_guide {}
