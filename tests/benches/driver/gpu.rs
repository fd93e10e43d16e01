//! The device state both twins share: context, stream, the empty kernel, the device buffer and
//! the host buffers of the copies, and the PTX of the JIT rows.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr;

use cuda_driver_sys::*;

use crate::die;

/// The empty kernel of the launch benchmarks, hand-written PTX (ISA 8.0, sm_52: loads on every
/// driver from CUDA 12.0 on; ptxas 12.0 accepts it for sm_52 and sm_90). Two 64-bit parameters,
/// so the parameter buffer is 16 bytes with no padding.
const EMPTY_PTX: &CStr = c".version 8.0
.target sm_52
.address_size 64

.visible .entry bench_empty(
	.param .u64 bench_empty_param_0,
	.param .u64 bench_empty_param_1
)
{
	ret;
}
";

/// The largest copy, and the size of every buffer the copies use.
pub const MAX_COPY: usize = 256 << 20;

pub struct Gpu {
    pub device: CUdevice,
    pub context: CUcontext,
    pub stream: CUstream,
    module: CUmodule,
    pub kernel: CUfunction,
    pub device_buffer: CUdeviceptr,
    /// vector_add.ptx, NUL-terminated.
    pub jit_ptx: Vec<u8>,
    /// The host buffers of the copies, each used by both twins (so where the kernel and the
    /// hypervisor placed its pages weighs on both sides of a ratio alike): a `Box<[u8]>` of
    /// `MAX_COPY` bytes as a raw pointer (the copies write through it), and `MAX_COPY` bytes from
    /// `cuMemAllocHost`.
    pageable: *mut [u8],
    locked: *mut c_void,
}

impl Gpu {
    /// The host buffer of the copies: page-locked or pageable.
    pub fn host(&self, locked: bool) -> *mut c_void {
        if locked {
            self.locked
        } else {
            self.pageable.cast()
        }
    }
}

/// The folder of `vector_add.ptx`: `--kernels`, `$CUDA_KERNELS_DIR`, the source tree's, `./`'s.
fn kernels_dir(kernels: Option<&Path>) -> PathBuf {
    if let Some(dir) = kernels {
        return dir.to_path_buf();
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels");
    if built.join("vector_add.ptx").is_file() {
        built
    } else {
        PathBuf::from("examples/kernels")
    }
}

/// The device state, and the CPU `pin` pinned the thread to: after the driver's set-up (the
/// threads the driver starts inherit the affinity of the thread that starts them), before the host
/// buffers are first touched (on a host of several NUMA nodes, both twins' pages then lie on the
/// measuring CPU's node; the nodes are printed).
pub fn setup(kernels: Option<&Path>, pin: impl FnOnce() -> usize) -> (Gpu, usize) {
    let ptx_path = kernels_dir(kernels).join("vector_add.ptx");
    let mut jit_ptx = std::fs::read(&ptx_path).unwrap_or_else(|e| {
        die(&format!(
            "cannot read {} ({e}): pass --kernels DIR or set CUDA_KERNELS_DIR to the folder of vector_add.ptx",
            ptx_path.display()
        ))
    });
    jit_ptx.push(0);
    eprintln!("driver bench: PTX JIT input: {}", ptx_path.display());

    let mut device: CUdevice = 0;
    setup!(unsafe { cuDeviceGet(&mut device, 0) });
    let mut context: CUcontext = ptr::null_mut();
    setup!(unsafe { cuDevicePrimaryCtxRetain(&mut context, device) });
    setup!(unsafe { cuCtxSetCurrent(context) });
    let mut stream: CUstream = ptr::null_mut();
    setup!(unsafe { cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0) });
    let mut module: CUmodule = ptr::null_mut();
    setup!(unsafe { cuModuleLoadData(&mut module, EMPTY_PTX.as_ptr().cast()) });
    let mut kernel: CUfunction = ptr::null_mut();
    setup!(unsafe { cuModuleGetFunction(&mut kernel, module, c"bench_empty".as_ptr()) });
    // A JIT load now, so that a machine where it fails stops here rather than after the other
    // measurements (this also loads the JIT compiler library).
    let mut jit_module: CUmodule = ptr::null_mut();
    setup!(unsafe { cuModuleLoadData(&mut jit_module, jit_ptx.as_ptr().cast()) });
    setup!(unsafe { cuModuleUnload(jit_module) });
    let mut device_buffer: CUdeviceptr = 0;
    setup!(unsafe { cuMemAlloc(&mut device_buffer, MAX_COPY) });
    let cpu = pin();
    // Host buffers, every byte written once (no first-touch faults in the copies).
    let pageable = Box::into_raw(vec![0xA5u8; MAX_COPY].into_boxed_slice());
    let mut locked: *mut c_void = ptr::null_mut();
    setup!(unsafe { cuMemAllocHost(&mut locked, MAX_COPY) });
    unsafe { ptr::write_bytes(locked.cast::<u8>(), 0xA5, MAX_COPY) };
    println!(
        "- NUMA nodes: measuring CPU {cpu} on node {}; host buffers (first page): pageable {}, page-locked {}",
        cpu_node(cpu),
        page_node(pageable.cast()),
        page_node(locked),
    );
    let gpu = Gpu {
        device,
        context,
        stream,
        module,
        kernel,
        device_buffer,
        jit_ptx,
        pageable,
        locked,
    };
    (gpu, cpu)
}

pub fn teardown(gpu: Gpu) {
    setup!(unsafe { cuCtxSetCurrent(gpu.context) });
    setup!(unsafe { cuMemFreeHost(gpu.locked) });
    drop(unsafe { Box::from_raw(gpu.pageable) });
    setup!(unsafe { cuMemFree(gpu.device_buffer) });
    setup!(unsafe { cuModuleUnload(gpu.module) });
    setup!(unsafe { cuStreamDestroy(gpu.stream) });
    setup!(unsafe { cuDevicePrimaryCtxRelease(gpu.device) });
}

/// The NUMA node of `cpu` (sysfs), or `?`.
fn cpu_node(cpu: usize) -> String {
    std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}"))
        .ok()
        .and_then(|dir| {
            dir.flatten().find_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_prefix("node").map(str::to_owned)
            })
        })
        .unwrap_or_else(|| "?".into())
}

/// The NUMA node of the page at `p` (`move_pages` without a target node only reports it).
fn page_node(p: *mut c_void) -> i32 {
    let mut pages = [p];
    let mut status = [i32::MIN];
    // SAFETY: one page address and one status slot; no nodes given, so nothing moves.
    let r = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0 as libc::c_long,
            1 as libc::c_ulong,
            pages.as_mut_ptr(),
            ptr::null::<c_int>(),
            status.as_mut_ptr(),
            0 as c_int,
        )
    };
    if r == 0 {
        status[0]
    } else {
        i32::MIN
    }
}

fn c_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Device 0: name, compute capability, PCI bus id and what sysfs says of its link.
pub fn describe_device() -> String {
    let mut device: CUdevice = 0;
    setup!(unsafe { cuDeviceGet(&mut device, 0) });
    let mut name = [0 as c_char; 256];
    setup!(unsafe { cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, device) });
    let (mut major, mut minor) = (0, 0);
    setup!(unsafe {
        cuDeviceGetAttribute(
            &mut major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device,
        )
    });
    setup!(unsafe {
        cuDeviceGetAttribute(
            &mut minor,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            device,
        )
    });
    let mut bus = [0 as c_char; 64];
    setup!(unsafe { cuDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as c_int, device) });
    let bus = c_string(&bus);
    let sys = Path::new("/sys/bus/pci/devices").join(bus.to_lowercase());
    let read = |f: &str| {
        std::fs::read_to_string(sys.join(f))
            .ok()
            .map(|v| v.trim().to_string())
    };
    let link = match (
        read("current_link_speed"),
        read("current_link_width"),
        read("max_link_speed"),
        read("max_link_width"),
    ) {
        (Some(cs), Some(cw), Some(ms), Some(mw)) => {
            format!("; sysfs PCIe link: current {cs} x{cw}, max {ms} x{mw}")
        }
        _ => String::new(),
    };
    format!(
        "0, {}, compute capability {major}.{minor}, PCI {bus}{link}",
        c_string(&name)
    )
}
