//! Tests of [`header_docs`](super) on snippets and the pinned header sets.

use super::*;

fn header(v: &str, name: &str) -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/ci-deps/headers")
        .join(v)
        .join(name);
    std::fs::read_to_string(path).ok()
}

/// The pinned headers (`ci/fetch-deps.sh`), or a failure that says how to get them.
fn pinned(v: &str, name: &str) -> HeaderDocs {
    let text = header(v, name).unwrap_or_else(|| {
        panic!("target/ci-deps/headers/{v}/{name} is missing: run `eval \"$(ci/fetch-deps.sh)\"`")
    });
    HeaderDocs::parse(name, &text)
}

const SNIPPET: &str = r#"
/**
 * \defgroup CUDA_TYPES Data types used by CUDA driver
 * @{
 */
typedef int CUdevice_v1; /**< not a \defgroup X here */
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0
} CUresult;
/** @} */ /* END CUDA_TYPES */
#define cuMemAlloc cuMemAlloc_v2
/**
 * \defgroup CUDA_MEM Memory Management
 *
 * \code
   CUresult CUDAAPI cuFake(int x);
 * \endcode
 * @{
 */
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr,
                            size_t   bytesize);
/** \ingroup CUDA_TYPES
 */
typedef struct CUx_st *CUx;
__CUDA_DEPRECATED CUresult CUDAAPI cuOld(void);
/** @} */
#if defined(__CUDA_API_VERSION_INTERNAL)
    CUresult CUDAAPI cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize);
    typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v2000)(CUdeviceptr_v1 *dptr, unsigned int bytesize);
#else
    CUresult CUDAAPI cuElse(void);
#endif
typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);
"#;

#[test]
fn snippet() {
    let h = HeaderDocs::parse("cuda.h", SNIPPET);
    let d = h.function("cuMemAlloc").unwrap();
    assert_eq!(
        d.text,
        "CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);"
    );
    assert_eq!(h.function_group("cuMemAlloc").unwrap().name, "CUDA_MEM");
    assert!(
        h.function("cuFake").is_none(),
        "declarations in comments are none"
    );
    assert_eq!(
        h.function("cuOld").unwrap().text,
        "__CUDA_DEPRECATED CUresult CUDAAPI cuOld(void);"
    );
    assert!(h.function("cuElse").is_some());
    assert_eq!(h.group_of("CUresult").unwrap().name, "CUDA_TYPES");
    assert_eq!(h.group_of("CUDA_SUCCESS").unwrap().name, "CUDA_TYPES");
    assert_eq!(h.group_of("CUx").unwrap().name, "CUDA_TYPES", "\\ingroup");
    assert_eq!(h.group_of("cuMemAlloc_v2"), None, "outside every group");
    assert!(h.typedef_is_internal("PFN_cuMemAlloc_v2000"));
    assert!(!h.typedef_is_internal("PFN_cuMemAlloc_v3020"));
    typedefs_read_as(
        &h,
        &[
            (
                "PFN_cuMemAlloc_v3020",
                "typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);",
            ),
            ("CUx", "typedef struct CUx_st *CUx;"),
            ("CUresult", "typedef enum cudaError_enum { ... } CUresult;"),
        ],
    );
    assert_eq!(
        h.define("cuMemAlloc"),
        Some("#define cuMemAlloc cuMemAlloc_v2")
    );
    let types = h.group_of("CUdevice_v1").unwrap();
    assert_eq!(
        types.title.as_deref(),
        Some("Data types used by CUDA driver")
    );
}

/// Each typedef of `cases` is read, with its declaration as written (a body as `{ ... }`).
fn typedefs_read_as(h: &HeaderDocs, cases: &[(&str, &str)]) {
    for (name, text) in cases {
        assert_eq!(
            h.typedef(name).map(|d| d.text.as_str()),
            Some(*text),
            "{name}"
        );
    }
}

#[test]
fn urls() {
    let g = Group {
        name: "CUDA_GREEN_CONTEXTS".into(),
        title: Some("Green Contexts".into()),
    };
    assert_eq!(
        g.url(),
        "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html"
    );
    assert_eq!(version_name(3020), "3.2");
    assert_eq!(version_name(12050), "12.5");
    assert_eq!(typedef_version("PFN_cuMemcpyHtoD_v7000_ptds"), Some(7000));
    assert_eq!(typedef_version("PFN_cuMemAlloc_v3020"), Some(3020));
}

#[test]
fn pinned_headers() {
    let h = pinned("13000", "cuda.h");
    assert_eq!(
            h.function("cuCtxCreate").unwrap().text,
            "CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);"
        );
    let mem = h.function_group("cuMemAlloc").unwrap();
    assert_eq!(mem.name, "CUDA_MEM");
    assert_eq!(mem.title.as_deref(), Some("Memory Management"));
    assert_eq!(h.function_group("cuCtxCreate").unwrap().name, "CUDA_CTX");
    assert_eq!(h.function_group("cuInit").unwrap().name, "CUDA_INITIALIZE");
    assert_eq!(
        h.function_group("cuGreenCtxCreate").unwrap().name,
        "CUDA_GREEN_CONTEXTS"
    );
    assert_eq!(h.group_of("CUresult").unwrap().name, "CUDA_TYPES");
    assert_eq!(
        h.group_of("CUDA_ERROR_NO_DEVICE").unwrap().name,
        "CUDA_TYPES"
    );
    assert_eq!(h.group_of("CUDA_MEMCPY2D_st").unwrap().name, "CUDA_TYPES");
    assert_eq!(
        h.group_of("CU_LAUNCH_PARAM_END").unwrap().name,
        "CUDA_TYPES"
    );
    // The legacy ABI at the end of cuda.h is not what a C program calls.
    let legacy = h.functions["cuMemcpy2DUnaligned"]
        .iter()
        .filter(|d| d.internal)
        .count();
    assert_eq!(legacy, 1);

    typedefs_read_as(
        &h,
        &[
            (
                "CUhostFn",
                "typedef void (CUDA_CB *CUhostFn)(void *userData);",
            ),
            ("CUDA_MEMCPY2D", "typedef CUDA_MEMCPY2D_v2 CUDA_MEMCPY2D;"),
            (
                "CUDA_MEMCPY2D_v2",
                "typedef struct CUDA_MEMCPY2D_st { ... } CUDA_MEMCPY2D_v2;",
            ),
        ],
    );
    assert_eq!(
        h.define("CU_STREAM_PER_THREAD"),
        Some("#define CU_STREAM_PER_THREAD ((CUstream)0x2)")
    );
    let t = pinned("13000", "cudaTypedefs.h");
    assert!(t.typedef("PFN_cuMemAlloc_v3020").is_some());
    assert!(t.typedef_is_internal("PFN_cuMemAlloc_v2000"));
    assert!(!t.typedef_is_internal("PFN_cuCtxCreate_v12050"));

    let gl = pinned("13000", "cudaGL.h");
    assert_eq!(
        gl.function_group("cuGraphicsGLRegisterBuffer")
            .unwrap()
            .name,
        "CUDA_GL"
    );
    assert_eq!(
        gl.function_group("cuGLCtxCreate").unwrap().name,
        "CUDA_GL_DEPRECATED"
    );
    let egl = pinned("13000", "cudaEGL.h");
    assert_eq!(egl.group_of("CUeglFrame").unwrap().name, "CUDA_TYPES");
    let profiler = pinned("13000", "cudaProfiler.h");
    assert_eq!(
        profiler.function_group("cuProfilerStart").unwrap().name,
        "CUDA_PROFILER"
    );
}

/// The functions of every pinned header are read, and all but a few (those the header
/// declares outside every group) have a group; counts per header into the log.
#[test]
fn every_pinned_function_has_a_group() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/ci-deps/headers");
    let mut versions: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}: run `eval \"$(ci/fetch-deps.sh)\"`", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    versions.sort();
    assert!(versions.len() >= 17, "the 17 pinned header versions");
    for v in &versions {
        for name in [
            "cuda.h",
            "cudaGL.h",
            "cudaEGL.h",
            "cudaVDPAU.h",
            "cudaProfiler.h",
        ] {
            let h = pinned(v, name);
            let public: Vec<&String> = h
                .functions
                .keys()
                .filter(|f| h.function(f).is_some())
                .collect();
            let without: Vec<&&String> = public
                .iter()
                .filter(|f| h.function_group(f).is_none())
                .collect();
            assert!(!public.is_empty(), "{v}/{name}: no functions read");
            // A few functions are declared outside every group (11.7: cuGetExportTable).
            assert!(
                without.len() * 20 <= public.len(),
                "{v}/{name}: no group for {without:?}"
            );
            println!(
                "{v}/{name}: {} functions, {} outside every group {without:?}",
                public.len(),
                without.len()
            );
        }
    }
}
