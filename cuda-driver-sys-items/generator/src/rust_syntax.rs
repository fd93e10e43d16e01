//! Small `syn` helpers over generated Rust, shared by the generator's stages and meant for the
//! tests' build script too: the `Option<fn>` matcher of `PFN_*` typedefs, the attributes of the
//! items the merge puts a `cfg` on, and the projection of a merged file onto one CUDA version and
//! target.

use quote::ToTokens;
use syn::punctuated::Punctuated;

/// The bare function type of `Option<unsafe extern "C" fn(..) -> ..>` (how bindgen writes a C
/// function-pointer typedef), `None` for any other type.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::TypeBareFn> {
    let syn::Type::Path(tp) = ty else { return None };
    let last = tp.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(syn::Type::BareFn(f)) => Some(f),
        _ => None,
    }
}

/// `pub fn $name(&mut $ty) -> Result<&mut Vec<syn::Attribute>, String>`: the attributes of the
/// listed variants of `$ty`; an error for the kinds generated files never hold there.
macro_rules! attrs_of {
    ($(#[$doc:meta] $name:ident: $ty:ident { $($variant:ident),* })*) => {$(
        #[$doc]
        pub fn $name(i: &mut syn::$ty) -> Result<&mut Vec<syn::Attribute>, String> {
            Ok(match i {
                $(syn::$ty::$variant(x) => &mut x.attrs,)*
                other => return Err(format!("no cfg on {}", other.to_token_stream())),
            })
        }
    )*};
}

attrs_of! {
    /// The attributes of a top-level item.
    item_attrs: Item {
        Const, Enum, ExternCrate, Fn, ForeignMod, Impl, Macro, Mod, Static, Struct, Trait,
        TraitAlias, Type, Union, Use
    }
    /// The attributes of an item of an `extern` block.
    foreign_attrs: ForeignItem { Fn, Static, Type, Macro }
    /// The attributes of an item of an `impl` block.
    impl_attrs: ImplItem { Const, Fn, Type, Macro }
    /// The attributes of an element of an array or of a list macro.
    expr_attrs: Expr { Array, Call, Lit, MethodCall, Path, Reference, Struct, Tuple }
}

/// The array literal of a `const` or `static` item, behind at most one `&`.
pub fn item_array_mut(i: &mut syn::Item) -> Option<&mut syn::ExprArray> {
    fn array_of(e: &mut syn::Expr) -> Option<&mut syn::ExprArray> {
        match e {
            syn::Expr::Array(a) => Some(a),
            syn::Expr::Reference(r) => array_of(&mut r.expr),
            _ => None,
        }
    }
    match i {
        syn::Item::Const(c) => array_of(&mut c.expr),
        syn::Item::Static(s) => array_of(&mut s.expr),
        _ => None,
    }
}

/// The elements of a macro invocation whose body is a comma-separated list of expressions
/// (`linked_functions! { (..), (..) }`), `None` for any other body.
pub fn macro_list(m: &syn::ItemMacro) -> Option<Vec<syn::Expr>> {
    let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, m.mac.tokens.clone())
        .ok()
        .map(|p| p.into_iter().collect())
}

/// What a merged generated file is projected onto: a CUDA header version, and whether the target
/// is Windows (`cfg(windows)`: the items a header declares only under `_WIN32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `CUDA_VERSION` of the header (`12090`).
    pub version: u32,
    /// Whether the target is Windows.
    pub windows: bool,
}

/// Whether the cfgs of `cuda_ge_<V>` and `windows` among `attrs` hold for `variant`
/// (`cuda_ge_V` holds for every `V <=` its version, as cuda-driver-sys-items's build script sets them);
/// removes them. Other attributes, other cfgs (the stream mode's) included, stay.
pub fn take_variant_cfgs(
    attrs: &mut Vec<syn::Attribute>,
    variant: Variant,
) -> Result<bool, String> {
    let mut variant_cfgs = Vec::new();
    let mut err = None;
    attrs.retain(|a| {
        if !a.path().is_ident("cfg") {
            return true;
        }
        match a.parse_args::<syn::Meta>() {
            Ok(meta) if names_variant(&meta) => {
                variant_cfgs.push(meta);
                false
            }
            Ok(_) => true,
            Err(e) => {
                err = Some(format!("a cfg does not parse: {e}"));
                true
            }
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    for meta in variant_cfgs {
        if !variant_cfg_holds(&meta, variant)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a cfg predicate names `windows` or a `cuda_ge_<V>` anywhere.
fn names_variant(meta: &syn::Meta) -> bool {
    match meta {
        syn::Meta::Path(p) => {
            p.is_ident("windows") || p.to_token_stream().to_string().starts_with("cuda_ge_")
        }
        syn::Meta::List(l) => l
            .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|args| args.iter().any(names_variant)),
        syn::Meta::NameValue(_) => false,
    }
}

/// Evaluates a cfg predicate of `cuda_ge_<V>`, `windows`, `all`, `any` and `not` for `variant`.
pub fn variant_cfg_holds(meta: &syn::Meta, variant: Variant) -> Result<bool, String> {
    match meta {
        syn::Meta::Path(p) if p.is_ident("windows") => Ok(variant.windows),
        syn::Meta::Path(p) => {
            let name = p.to_token_stream().to_string();
            let v: u32 = name
                .strip_prefix("cuda_ge_")
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("`{name}` in a version cfg"))?;
            Ok(v <= variant.version)
        }
        syn::Meta::List(l) => {
            let args = l
                .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
                .map_err(|e| format!("a cfg's arguments do not parse: {e}"))?;
            let values = args
                .iter()
                .map(|m| variant_cfg_holds(m, variant))
                .collect::<Result<Vec<bool>, String>>()?;
            match l.path.to_token_stream().to_string().as_str() {
                "all" => Ok(values.iter().all(|b| *b)),
                "any" => Ok(values.iter().any(|b| *b)),
                "not" if values.len() == 1 => Ok(!values[0]),
                other => Err(format!("cfg predicate `{other}` in a version cfg")),
            }
        }
        syn::Meta::NameValue(_) => Err("a `name = value` predicate in a version cfg".into()),
    }
}

/// What version `selected` compiles of a merged generated file on a target other than Windows
/// (every target the tests run on): [`project`].
pub fn project_version(file: &mut syn::File, selected: u32) -> Result<(), String> {
    project(
        file,
        Variant {
            version: selected,
            windows: false,
        },
    )
}

/// What `variant` compiles of a merged generated file, without its cfgs of `cuda_ge_<V>` and
/// `windows`: the top-level items whose cfg holds, and inside them the items of `impl` and
/// `extern` blocks, the variants of enums, the elements of constant arrays and of list macros
/// whose cfg holds.
pub fn project(file: &mut syn::File, variant: Variant) -> Result<(), String> {
    fn retain<T>(
        items: impl IntoIterator<Item = T>,
        variant: Variant,
        attrs: impl Fn(&mut T) -> Result<&mut Vec<syn::Attribute>, String>,
    ) -> Result<Vec<T>, String> {
        let mut kept = Vec::new();
        for mut i in items {
            if take_variant_cfgs(attrs(&mut i)?, variant)? {
                kept.push(i);
            }
        }
        Ok(kept)
    }
    let items = std::mem::take(&mut file.items);
    for mut item in retain(items, variant, item_attrs)? {
        match &mut item {
            syn::Item::ForeignMod(m) => {
                m.items = retain(std::mem::take(&mut m.items), variant, foreign_attrs)?;
            }
            syn::Item::Impl(i) => {
                i.items = retain(std::mem::take(&mut i.items), variant, impl_attrs)?;
            }
            syn::Item::Enum(e) => {
                let variants = std::mem::take(&mut e.variants);
                e.variants = retain(variants, variant, |v| Ok(&mut v.attrs))?
                    .into_iter()
                    .collect();
            }
            syn::Item::Macro(m) if m.ident.is_none() => {
                if let Some(elements) = macro_list(m) {
                    let list: Punctuated<syn::Expr, syn::Token![,]> =
                        retain(elements, variant, expr_attrs)?.into_iter().collect();
                    m.mac.tokens = list.to_token_stream();
                }
            }
            _ => {}
        }
        if let Some(array) = item_array_mut(&mut item) {
            let elements = std::mem::take(&mut array.elems);
            array.elems = retain(elements, variant, expr_attrs)?.into_iter().collect();
        }
        file.items.push(item);
    }
    Ok(())
}
