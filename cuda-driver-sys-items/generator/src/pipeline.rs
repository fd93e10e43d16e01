//! Runs the generation of one header version: the bindgen passes and the preprocessor over each
//! header set, the C-spelling analysis, then every emitter, each writing its file (under the
//! header `generated_file` gives it) into [`Options::out_dir`].

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;

use crate::bindgen_pass::{run_bindgen, strip_core};
use crate::function_docs::function_facts;
use crate::header_docs::HeaderDocs;
use crate::header_set::{HeaderSet, CORE, MODULES};
use crate::item_docs::SetDocs;
use crate::macros::{expand_macros, object_like_macros, unsigned_complements};
use crate::parsed::{parse, Parsed};
use crate::Options;
use crate::{
    bindings, c_spellings, compat, dynamic, entry, function_names, functions, generated_file,
    linked, names, table,
};

/// A summary of one generation, for logs.
#[derive(Debug)]
pub struct Summary {
    /// The header's `CUDA_VERSION` (`12090`).
    pub cuda_version: u32,
    /// Functions bound under their real symbols.
    pub functions: usize,
    /// Names a C program calls the functions by (`c_spellings`).
    pub c_spellings: usize,
    /// Versioned `PFN_*` typedefs.
    pub pfn_typedefs: usize,
    /// Enumerators, each also at top level (`names.rs`).
    pub enumerators: usize,
    /// Macro constants bindgen cannot translate (`names.rs`).
    pub macro_constants: usize,
    /// C spellings whose `PFN_*` version was derived from the signature (the header has no
    /// `PFN_cuX` macro for them).
    pub derived_pfn_versions: usize,
    /// The same for each module of [`MODULES`] generated.
    pub modules: Vec<(&'static str, Summary)>,
}

/// Runs the whole generation: `cuda.h`'s files, and with [`Options::interop_include`] those of
/// every module of [`MODULES`]. Errors say what in the header could not be handled.
pub fn generate(opts: &Options) -> Result<Summary, String> {
    if let Some(m) = &opts.only_module {
        let set = MODULES
            .iter()
            .find(|s| s.module == m && opts.interop_include.is_some())
            .ok_or_else(|| {
                let modules: Vec<&str> = MODULES.iter().map(|s| s.module).collect();
                format!(
                    "--only {m}: not a module of the interop headers ({}), or no --interop \
                     directory",
                    modules.join(", ")
                )
            })?;
        // The module's items use cuda.h's types: one bindgen run of its internal view (the
        // legacy functions it keeps are none of the module's), no file of its written.
        let core_src = run_bindgen(opts, &CORE, &INTERNAL_DEFINES, &BTreeSet::new())?;
        let core = (parse(&core_src)?, core_src);
        return Ok(generate_set(opts, set, Some(&core))?.0);
    }
    let (mut summary, core) = generate_set(opts, &CORE, None)?;
    if opts.interop_include.is_some() {
        for set in MODULES {
            let (s, _) = generate_set(opts, set, Some(&core))?;
            summary.modules.push((set.module, s));
        }
    }
    Ok(summary)
}

/// The definitions of the driver's own internal view of a header: every item, legacy types and
/// `PFN_*` typedefs included.
const INTERNAL_DEFINES: [&str; 2] = [
    "-D__CUDA_API_VERSION_INTERNAL",
    "-D__CUDA_API_VERSION_INTERNAL_ODR",
];

/// Generates the files of one header set. A module's items name `cuda.h`'s types, which `core`
/// (the parsed `cuda.h` bindings, and bindgen's text of them) resolves when signatures are
/// compared; `cuda.h`'s items that bindgen emits again for a module are dropped from it.
fn generate_set(
    opts: &Options,
    set: &HeaderSet,
    core: Option<&(Parsed, String)>,
) -> Result<(Summary, (Parsed, String)), String> {
    let run_bindgen = |opts: &Options,
                       set: &HeaderSet,
                       defines: &[&str],
                       blocked: &BTreeSet<String>|
     -> Result<String, String> {
        let src = run_bindgen(opts, set, defines, blocked)?;
        match core {
            Some((_, core_src)) => strip_core(&src, core_src),
            None => Ok(src),
        }
    };
    let core = core.map(|c| &c.0);
    let read = |name: &str| {
        let path = opts.include_dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let cuda_h = read("cuda.h")?;
    let header_h = read(set.headers[0])?;
    let typedefs_h = read(set.headers[1])?;
    let cuda_version = cuda_version(&cuda_h)?;
    let docs = SetDocs {
        header: HeaderDocs::parse(set.headers[0], &header_h),
        typedefs: HeaderDocs::parse(set.headers[1], &typedefs_h),
    };
    let with_core = |mut p: Parsed| {
        if let Some(core) = core {
            for (k, v) in &core.aliases {
                p.aliases.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        p
    };

    // Functions as a C program sees them, in both stream modes.
    let normal = with_core(parse(&run_bindgen(opts, set, &[], &BTreeSet::new())?)?);
    let per_thread = with_core(parse(&run_bindgen(
        opts,
        set,
        &["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
        &BTreeSet::new(),
    )?)?);
    let wanted: BTreeSet<String> = normal
        .functions
        .keys()
        .chain(per_thread.functions.keys())
        .cloned()
        .collect();

    // Everything, legacy types and PFN typedefs included, from the driver's own internal view;
    // minus the legacy functions whose names the C spellings take over.
    let probe = parse(&run_bindgen(
        opts,
        set,
        &INTERNAL_DEFINES,
        &BTreeSet::new(),
    )?)?;
    let legacy: BTreeSet<String> = probe
        .functions
        .keys()
        .filter(|f| !wanted.contains(*f))
        .cloned()
        .collect();
    let bindings_src = run_bindgen(opts, set, &INTERNAL_DEFINES, &legacy)?;
    let mut bindings = with_core(parse(&bindings_src)?);
    // Enumerators the header declares only under __CUDA_API_VERSION_INTERNAL (12.1-12.4:
    // CU_LAUNCH_ATTRIBUTE_MAX) are none of a C program's: the enums keep what it sees.
    let mut internal_only: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (ty, consts) in bindings.enums.iter_mut() {
        if let Some(seen) = normal.enums.get(ty) {
            let (keep, drop): (Vec<String>, Vec<String>) =
                consts.drain(..).partition(|c| seen.contains(c));
            *consts = keep;
            if !drop.is_empty() {
                internal_only.insert(ty.clone(), drop.into_iter().collect());
            }
        }
    }
    for f in &wanted {
        if !bindings.functions.contains_key(f) {
            return Err(format!(
                "function {f} is declared by {} but missing from the internal view",
                set.headers[0]
            ));
        }
    }

    // Macro expansions, as the preprocessor sees them in each mode.
    let mut macro_names = object_like_macros(&header_h);
    macro_names.extend(object_like_macros(&typedefs_h));
    let exp_normal = expand_macros(opts, set, &macro_names, &[])?;
    let exp_pt = expand_macros(
        opts,
        set,
        &macro_names,
        &["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
    )?;

    let spellings = c_spellings::analyse(
        &bindings,
        &macro_names,
        &exp_normal,
        &exp_pt,
        &normal,
        &per_thread,
    )?;
    let names = names::generate(&bindings, &macro_names, &exp_normal, &spellings, &docs)?;
    let entries = entry::generate(&bindings, &spellings)?;
    let facts = |sym: &str| function_facts(sym, &spellings, &entries.c_spelling, &docs);

    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| format!("{}: {e}", opts.out_dir.display()))?;
    let write = |name: &str, body: &str| {
        let header = generated_file::header(set, name, cuda_version, &opts.regenerate_hint)?;
        let path = opts.out_dir.join(set.file(name));
        std::fs::write(&path, format!("{header}{body}"))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    // Macros the header #undefs again (13.5: RESOURCE_ABI_BYTES) are no constants of the API:
    // bindgen reports every #define it saw, the preprocessor what is left at the end.
    let undefined: BTreeSet<String> = bindings
        .consts
        .keys()
        .filter(|c| exp_normal.get(*c).is_some_and(|e| e == *c))
        .cloned()
        .collect();
    let unsigned = unsigned_complements(&bindings, &exp_normal);
    let (types_src, extern_blocks, renumbered) =
        bindings::split_functions(&bindings_src, &undefined, &unsigned, &internal_only, &docs)?;
    write("bindings.rs", &types_src)?;
    write("functions.rs", &functions::emit(extern_blocks, &facts))?;
    let names_tokens = compat::mark_top_level(names.tokens.clone(), &renumbered)?;
    write("names.rs", &format_tokens(names_tokens)?)?;
    write(
        "function_names.rs",
        &format_tokens(function_names::generate(&spellings.functions))?,
    )?;
    write(
        "table.rs",
        &format_tokens(table::generate(
            &bindings,
            &spellings,
            &entries.c_spelling,
            set,
        )?)?,
    )?;
    write(
        "dynamic.rs",
        &format_tokens(dynamic::generate(
            &bindings,
            &spellings,
            &entries.c_spelling,
            set,
            &facts,
        )?)?,
    )?;
    write("entry.rs", &format_tokens(entries.tokens)?)?;
    write(
        "linked.rs",
        &linked::generate(&spellings, &entries.c_spelling),
    )?;

    let summary = Summary {
        cuda_version,
        functions: bindings.functions.len(),
        c_spellings: spellings.functions.len(),
        pfn_typedefs: bindings.pfns.len(),
        enumerators: names.enumerators,
        macro_constants: names.macro_constants,
        derived_pfn_versions: entries.derived,
        modules: Vec::new(),
    };
    Ok((summary, (bindings, bindings_src)))
}

fn cuda_version(cuda_h: &str) -> Result<u32, String> {
    let re = regex::Regex::new(r"(?m)^#define CUDA_VERSION (\d+)").unwrap();
    re.captures(cuda_h)
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| "cuda.h defines no CUDA_VERSION".to_string())
}

/// Tokens as prettyplease writes a file of them.
fn format_tokens(tokens: TokenStream) -> Result<String, String> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("generated code does not parse: {e}"))?;
    Ok(prettyplease::unparse(&file))
}
