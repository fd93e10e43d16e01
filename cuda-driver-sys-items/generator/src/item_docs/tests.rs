use super::*;

fn pinned_set(v: &str, headers: [&str; 2]) -> SetDocs {
    let read = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/ci-deps/headers")
            .join(v)
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: run `eval \"$(ci/fetch-deps.sh)\"`",
                path.display()
            )
        });
        HeaderDocs::parse(name, &text)
    };
    SetDocs {
        header: read(headers[0]),
        typedefs: read(headers[1]),
    }
}

fn docs_of(item: &syn::Item) -> String {
    let attrs = match item {
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Type(t) => &t.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Use(u) => &u.attrs,
        _ => return String::new(),
    };
    doc_text(attrs)
}

fn doc_text(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim_start().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// bindgen's items as cuda.h 13.0 gives them, documented.
#[test]
fn bindings_of_cuda_h() {
    let docs = pinned_set("13000", ["cuda.h", "cudaTypedefs.h"]);
    let mut file: syn::File = syn::parse_quote! {
        pub const CU_IPC_HANDLE_SIZE: u32 = 64;
        #[repr(transparent)]
        #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
        pub struct cudaError_enum(pub ::core::ffi::c_uint);
        pub use self::cudaError_enum as CUresult;
        impl cudaError_enum {
            pub const CUDA_SUCCESS: cudaError_enum = cudaError_enum(0);
        }
        #[repr(C)]
        pub struct CUctx_st { _unused: [u8; 0] }
        pub type CUcontext = *mut CUctx_st;
        #[repr(C)]
        pub struct CUDA_HOST_NODE_PARAMS_st { pub fn_: CUhostFn, pub userData: *mut c_void }
        pub type PFN_cuMemAlloc_v3020 = Option<unsafe extern "C" fn(dptr: *mut CUdeviceptr_v2, bytesize: usize) -> CUresult>;
        pub type PFN_cuMemAlloc_v2000 = Option<unsafe extern "C" fn(dptr: *mut CUdeviceptr_v1, bytesize: c_uint) -> CUresult>;
    };
    document_bindings(&mut file, &docs);
    let d: Vec<String> = file.items.iter().map(docs_of).collect();
    for text in &d {
        println!("{text}\n--");
    }
    let types = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html";
    assert!(d[0].starts_with("`#define CU_IPC_HANDLE_SIZE 64`\n\n- Header: `cuda.h`\n- NVIDIA: "));
    assert!(d[0].contains(types));
    // The enum says its typedef: the typedef's re-export says nothing, so that rustdoc's page
    // of `CUresult` (the re-export's docs, then the enum's) has each line once.
    assert_eq!(
        d[1],
        format!(
            "`typedef enum cudaError_enum {{ ... }} CUresult;`\n\nA newtype over the C integer: \
             any value is valid, also one the header does not name (from a newer driver). Its \
             enumerators are associated constants, and top-level constants too.\n\n\
             - Header: `cuda.h`; C name `enum cudaError_enum`, typedef `CUresult`\n\
             - NVIDIA: [Data types used by CUDA driver]({types})"
        )
    );
    assert_eq!(d[2], "");
    let syn::Item::Impl(i) = &file.items[3] else {
        unreachable!()
    };
    let syn::ImplItem::Const(c) = &i.items[0] else {
        unreachable!()
    };
    assert_eq!(doc_text(&c.attrs), "`CUDA_SUCCESS = 0`");
    assert!(d[4].contains("Opaque"), "{}", d[4]);
    assert!(d[4].starts_with("`struct CUctx_st;`\n\nOpaque"), "{}", d[4]);
    assert!(d[5].starts_with("`typedef struct CUctx_st *CUcontext;`\n\n- Header: `cuda.h`"));
    let syn::Item::Struct(s) = &file.items[6] else {
        unreachable!()
    };
    let field = doc_text(&s.fields.iter().next().unwrap().attrs);
    assert_eq!(field, "C's member `fn`.");
    assert_eq!(
        d[7],
        "`typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);`\n\n\
         - Header: `cudaTypedefs.h`\n\
         - Typedef: the type of `cuMemAlloc` with the ABI of CUDA 3.2\n\
         - Entry point: [`entry::cuMemAlloc_v3020`](super::entry::cuMemAlloc_v3020)\n\
         - NVIDIA: [Memory Management](https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html)"
    );
    assert!(d[8].contains("__CUDA_API_VERSION_INTERNAL"), "{}", d[8]);
}
