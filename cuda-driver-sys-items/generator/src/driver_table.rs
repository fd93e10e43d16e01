//! Emits `driver_table.rs`: the driver-entry table's type `DriverTable`, with one field of slots
//! per header set (`core` for `cuda.h`, then one per module of [`MODULES`], under its feature),
//! its constructor and the list of its parts. `cuda-driver-sys-items/src/table.rs` includes it; the
//! methods of each header are in that header's `table.rs` (`gl_table.rs`). The same for every
//! header version, so written once by the merge stage.

use std::fmt::Write as _;

use crate::header_set::MODULES;

/// The text of `driver_table.rs`, under the header `header`.
pub(crate) fn text(header: &str) -> String {
    let (mut fields, mut slots, mut parts) = (String::new(), String::new(), String::new());
    for set in MODULES {
        let (m, cfg) = (set.module, format!("#[cfg(feature = \"{}\")]", set.module));
        write!(
            fields,
            "\n    {cfg}\n    pub(crate) {m}: Slots<{{ crate::{m}::table::TABLE_LEN }}>,"
        )
        .unwrap();
        write!(
            slots,
            "\n            {cfg}\n            {m}: Slots::new(&crate::{m}::table::TABLE_ENTRIES),"
        )
        .unwrap();
        write!(parts, "\n            {cfg}\n            self.{m}.part(),").unwrap();
    }
    let modules: Vec<String> = MODULES.iter().map(|s| format!("`{}`", s.module)).collect();
    format!(
        r#"{header}/// The driver functions of `cuda.h` and of the other driver-API headers whose features are on
/// ({modules}), one slot each.
/// Resolved through `cuGetProcAddress` at each function's own version on first use (lock-free
/// after it), or all at once with [`DriverTable::resolve_all`]. Each function is a method with
/// its C signature.
pub struct DriverTable {{
    pub(crate) mode: StreamMode,
    pub(crate) core: Slots<TABLE_LEN>,{fields}
}}

impl DriverTable {{
    /// An empty table in `mode`; nothing is looked up before first use.
    ///
    /// ```
    /// use cuda_driver_sys::{{DriverTable, StreamMode}};
    /// static PER_THREAD: DriverTable = DriverTable::new(StreamMode::PerThread);
    /// let mut v = 0;
    /// let _ = unsafe {{ PER_THREAD.cuDriverGetVersion(&mut v) }};
    /// ```
    pub const fn new(mode: StreamMode) -> Self {{
        DriverTable {{
            mode,
            core: Slots::new(&TABLE_ENTRIES),{slots}
        }}
    }}

    /// Every header's slots: `cuda.h`'s, then each interop module's whose feature is on.
    fn parts(&self) -> impl Iterator<Item = Part<'_>> {{
        [
            self.core.part(),{parts}
        ]
        .into_iter()
    }}
}}
"#,
        modules = modules.join(", "),
    )
}
