//! Peer access between two GPUs: the PEER_ACCESS group and the peer copies of the MEM group.
//! Whether each device can access the other, the P2P attributes and atomic capabilities of each
//! direction; peer access enabled from each primary context to the other; device memory copied to
//! the other GPU (`cuMemcpyPeer`), back (`cuMemcpyPeerAsync`), and as a 3D box there
//! (`cuMemcpy3DPeer`) and its upper half back onto the lower half (`cuMemcpy3DPeerAsync`); a kernel
//! on the first GPU reading the second GPU's memory; peer access disabled (disabling it again is
//! refused as not enabled). Every copy and the kernel's result are checked word by word; the
//! asynchronous work waits behind a delay in its stream, so that its results, or the stream's query
//! after the synchronisation, show that the host waited. With fewer than two GPUs, or two that
//! cannot access each other's memory (`cuDeviceCanAccessPeer`), there is nothing to test:
//! `Result = WAIVED`, exit code 100. C twin: `peer.cpp`.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::mem::zeroed;
use std::ptr;

use common::{check, delay, expect, expect_idle, finish, load_module, result_name, waive, yes};
use cuda_driver_sys::*;

/// `(value, "NAME")` of each P2P attribute.
macro_rules! named {
    ($($name:ident),* $(,)?) => {
        [$(($name, stringify!($name))),*]
    };
}

const P2P: [(CUdevice_P2PAttribute, &str); 5] = named![
    CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
    CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED,
];

/// How many words of `out` are `base + i` each.
fn count_equal(out: &[c_int], base: c_int) -> usize {
    (out.iter().enumerate())
        .filter(|(i, v)| **v == base + *i as c_int)
        .count()
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            std::process::exit(1);
        }
        let mut count: c_int = 0;
        check!(cuDeviceGetCount(&mut count));
        if count < 2 {
            waive(&format!(
                "peer access needs two devices; this machine has {count}"
            ));
        }
        let mut dev: [CUdevice; 2] = [0, 0];
        let mut ctx: [CUcontext; 2] = [ptr::null_mut(); 2];
        for d in 0..2 {
            if !check!(cuDeviceGet(&mut dev[d], d as c_int)) {
                finish();
            }
            if !check!(cuDevicePrimaryCtxRetain(&mut ctx[d], dev[d])) {
                finish();
            }
        }
        let mut can: [c_int; 2] = [0, 0];
        for d in 0..2 {
            let (from, to) = (dev[d], dev[1 - d]);
            check!(cuDeviceCanAccessPeer(&mut can[d], from, to));
            println!("device {d} can access device {}: {}", 1 - d, can[d]);
            for (attribute, name) in P2P {
                let mut value: c_int = -1;
                let code = cuDeviceGetP2PAttribute(&mut value, attribute, from, to);
                if code == CUresult::CUDA_SUCCESS {
                    println!("  {name} = {value}");
                } else {
                    println!("  {name}: {}", result_name(code));
                }
            }
            let ops = [
                CU_ATOMIC_OPERATION_INTEGER_ADD,
                CU_ATOMIC_OPERATION_CAS,
                CU_ATOMIC_OPERATION_FLOAT_ADD,
            ];
            let mut caps: [c_uint; 3] = [0; 3];
            let code =
                cuDeviceGetP2PAtomicCapabilities(caps.as_mut_ptr(), ops.as_ptr(), 3, from, to);
            println!(
                "  atomic capabilities (add, CAS, float add): {}, {} {} {}",
                result_name(code),
                caps[0],
                caps[1],
                caps[2]
            );
        }
        if can[0] == 0 || can[1] == 0 {
            for d in dev {
                check!(cuDevicePrimaryCtxRelease(d));
            }
            waive("devices 0 and 1 cannot access each other's memory");
        }

        // Peer access, each primary context to the other's device.
        let mut enabled = true;
        for d in 0..2 {
            check!(cuCtxSetCurrent(ctx[d]));
            let code = cuCtxEnablePeerAccess(ctx[1 - d], 0);
            println!("context {d}: cuCtxEnablePeerAccess: {}", result_name(code));
            enabled = enabled && code == CUresult::CUDA_SUCCESS;
        }
        expect(enabled, "peer access is enabled both ways");

        // Copies between the devices: there, back, and as 3D boxes.
        let n: c_int = 1 << 16;
        let bytes = n as usize * size_of::<c_int>();
        let host: Vec<c_int> = (0..n).map(|i| 1000 + i).collect();
        let mut back: Vec<c_int> = vec![0; n as usize];
        let mut a: [CUdeviceptr; 2] = [0, 0];
        let mut b: [CUdeviceptr; 2] = [0, 0];
        for d in 0..2 {
            check!(cuCtxSetCurrent(ctx[d]));
            check!(cuMemAlloc(&mut a[d], bytes));
            check!(cuMemAlloc(&mut b[d], bytes));
        }
        check!(cuCtxSetCurrent(ctx[0]));
        check!(cuMemcpyHtoD(a[0], host.as_ptr().cast(), bytes));
        check!(cuMemcpyPeer(a[1], ctx[1], a[0], ctx[0], bytes));
        check!(cuCtxSetCurrent(ctx[1]));
        back.fill(0);
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), a[1], bytes));
        let same = count_equal(&back, 1000);
        println!("cuMemcpyPeer to device 1: {same} of {n} words");
        expect(same == n as usize, "cuMemcpyPeer copied to device 1");
        let mut stream: CUstream = ptr::null_mut();
        check!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
        delay(stream);
        check!(cuMemcpyPeerAsync(b[0], ctx[0], a[1], ctx[1], bytes, stream));
        check!(cuStreamSynchronize(stream));
        check!(cuCtxSetCurrent(ctx[0]));
        back.fill(0);
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), b[0], bytes));
        let same = count_equal(&back, 1000);
        println!("cuMemcpyPeerAsync back to device 0: {same} of {n} words");
        expect(
            same == n as usize,
            "cuMemcpyPeerAsync copied back to device 0",
        );
        // A box of 64 x 16 x 64 ints (the whole buffer), device 0 to 1, then its upper 32 layers
        // back to device 0's lower 32, asynchronously: word i of the lower half becomes word
        // i + n / 2, the upper half stays as it was.
        let mut cube: CUDA_MEMCPY3D_PEER = zeroed();
        cube.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        cube.srcDevice = b[0];
        cube.srcContext = ctx[0];
        cube.srcPitch = 64 * size_of::<c_int>();
        cube.srcHeight = 16;
        cube.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        cube.dstDevice = b[1];
        cube.dstContext = ctx[1];
        cube.dstPitch = 64 * size_of::<c_int>();
        cube.dstHeight = 16;
        cube.WidthInBytes = 64 * size_of::<c_int>();
        cube.Height = 16;
        cube.Depth = 64;
        check!(cuMemcpy3DPeer(&cube));
        let mut cube_back = cube;
        cube_back.srcDevice = b[1];
        cube_back.srcContext = ctx[1];
        cube_back.srcZ = 32;
        cube_back.dstDevice = b[0];
        cube_back.dstContext = ctx[0];
        cube_back.Depth = 32;
        delay(stream);
        check!(cuMemcpy3DPeerAsync(&cube_back, stream));
        check!(cuStreamSynchronize(stream));
        back.fill(0);
        check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), b[0], bytes));
        let half = n as usize / 2;
        let same =
            count_equal(&back[..half], 1000 + n / 2) + count_equal(&back[half..], 1000 + n / 2);
        println!(
            "cuMemcpy3DPeer there and cuMemcpy3DPeerAsync of its upper half back onto the lower: \
             {same} of {n} words"
        );
        expect(
            same == n as usize,
            "the 3D peer copies carried the box there and its upper half back",
        );

        // A kernel on device 0 reading device 1's memory, into device 0's first buffer (which the
        // asynchronous copies above do not write).
        if enabled {
            let module = load_module("peer.ptx");
            let mut add_one: CUfunction = ptr::null_mut();
            if check!(cuModuleGetFunction(
                &mut add_one,
                module,
                c"add_one".as_ptr()
            )) {
                let mut elements = n;
                let mut args: [*mut c_void; 3] = [
                    (&mut a[1] as *mut CUdeviceptr).cast(),
                    (&mut a[0] as *mut CUdeviceptr).cast(),
                    (&mut elements as *mut c_int).cast(),
                ];
                delay(ptr::null_mut());
                check!(cuLaunchKernel(
                    add_one,
                    (n / 256) as c_uint,
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    ptr::null_mut(),
                    args.as_mut_ptr(),
                    ptr::null_mut()
                ));
                check!(cuCtxSynchronize());
                expect_idle(ptr::null_mut(), "the kernel done after cuCtxSynchronize");
                back.fill(0);
                check!(cuMemcpyDtoH(back.as_mut_ptr().cast(), a[0], bytes));
                let same = count_equal(&back, 1001);
                println!("a kernel on device 0 read device 1's memory: {same} of {n} words");
                expect(same == n as usize, "the kernel read the peer's memory");
            }
            check!(cuModuleUnload(module));
            for d in 0..2 {
                check!(cuCtxSetCurrent(ctx[d]));
                check!(cuCtxDisablePeerAccess(ctx[1 - d]));
            }
            let mut disabled = true;
            for d in 0..2 {
                check!(cuCtxSetCurrent(ctx[d]));
                disabled = disabled
                    && cuCtxDisablePeerAccess(ctx[1 - d]) == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
            }
            println!("peer access disabled both ways: {}", yes(disabled));
            expect(disabled, "peer access disabled both ways");
        }

        check!(cuCtxSetCurrent(ctx[1]));
        check!(cuStreamDestroy(stream));
        for d in 0..2 {
            check!(cuCtxSetCurrent(ctx[d]));
            check!(cuMemFree(a[d]));
            check!(cuMemFree(b[d]));
        }
        check!(cuCtxSetCurrent(ptr::null_mut()));
        for d in dev {
            check!(cuDevicePrimaryCtxRelease(d));
        }
        finish()
    }
}
