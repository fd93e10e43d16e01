//! What the tests stand on, as tasks: the fetched dependencies and their environment
//! (`fetch-deps`), the stub driver library the builds for newer headers link (`stub-libcuda`), a
//! pinned crate file checked against its lock (`pinned-crate`), and the version list
//! (`versions`). The fetching itself is shared, in [`crate::base::deps`].

pub mod fetch_deps;
pub mod pinned_crate;
pub mod stub_libcuda;
pub mod versions;
