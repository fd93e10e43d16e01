//! Emits `<module>.rs` for each header set of [`MODULES`](crate::MODULES) (`gl.rs`): the root of
//! that module of `cuda-driver-sys`, which its `lib.rs` declares as a plain module
//! (`#[path = "generated/gl.rs"] pub mod gl;`). The same for every header version, so written
//! once by the merge stage, not per version; it reaches the module's generated files through the
//! crate's `generated!` (the committed files, or under the `bindgen` feature the build script's).

use crate::header_set::HeaderSet;

/// The text of the module root of `set`, under the header `header`.
pub(crate) fn text(set: &HeaderSet, header: &str) -> String {
    let file = |kind: &str| set.file(kind);
    format!(
        r#"{header}#[allow(unused_imports)]
use crate::bindings::*;

/// bindgen's translation of the header pair, re-exported here. `cuda.h`'s types are the crate's;
/// those of other APIs (OpenGL, EGL, VDPAU) are bound from their own headers, with their C sizes.
#[allow(unknown_lints, unpredictable_function_pointer_comparisons)]
mod bindings {{
    #[allow(unused_imports)]
    use crate::bindings::*;
    generated!("{bindings}");
}}
pub use bindings::*;

/// The functions, under their real symbols: linked, or under `dynamic-loading` resolved on first
/// call through the crate's loader.
#[allow(dead_code)]
pub(crate) mod functions {{
    use super::bindings::*;
    use crate::bindings::*;
    #[cfg(not(feature = "dynamic-loading"))]
    generated!("{functions}");
    #[cfg(feature = "dynamic-loading")]
    generated!("{dynamic}");
}}
#[cfg(not(feature = "table-only"))]
pub use functions::*;
// The C spellings (`cuGLCtxCreate` is `cuGLCtxCreate_v2`).
#[cfg(not(feature = "table-only"))]
generated!("{function_names}");
// The unversioned `PFN_*` macros, every enumerator at top level, macro constants.
generated!("{names}");

/// One typed [`EntryPoint`](crate::EntryPoint) per `PFN_*` typedef of the typedef header and one
/// per C spelling, as [`crate::entry`] for `cuda.h`.
pub mod entry {{
    generated!("{entry}");
}}

/// This header's part of the driver-entry table: its functions are methods of
/// [`DriverTable`](crate::DriverTable) (`cuda_driver_sys::table()`), as `cuda.h`'s are, and its
/// `TABLE_ENTRIES` are in [`DriverTable::entries`](crate::DriverTable::entries).
#[cfg(feature = "table")]
pub mod table {{
    #[allow(unused_imports)]
    use super::bindings::*;
    use super::entry;
    use crate::bindings::*;
    use crate::table::TableEntry;
    use crate::DriverTable;
    generated!("{table}");
}}
"#,
        bindings = file("bindings.rs"),
        functions = file("functions.rs"),
        dynamic = file("dynamic.rs"),
        function_names = file("function_names.rs"),
        names = file("names.rs"),
        entry = file("entry.rs"),
        table = file("table.rs"),
    )
}
