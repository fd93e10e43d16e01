//! One round of the cudarc safe-layer benchmark (`cargo xtask cudarc-check --bundle` builds it
//! against cudarc on its own `sys` and on cuda-driver-sys; gpu-run alternates the two builds and
//! prints the ratios): the time per call of three of cudarc's safe calls on one stream, printed as
//! `NAME NANOSECONDS` lines: the median of REPEATS timings of CALLS calls each, after a warm-up,
//! with the stream synchronized before each clock stops.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::time::Instant;

/// Calls per timing.
const CALLS: u32 = 5_000;
/// Timings per call kind.
const REPEATS: usize = 7;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let ptx = compile_ptx("extern \"C\" __global__ void empty(int x) { }")?;
    let module = ctx.load_module(ptx)?;
    let empty = module.load_function("empty")?;
    let host = [1.0f32; 64];
    let mut device = stream.alloc_zeros::<f32>(host.len())?;
    let cfg = LaunchConfig::for_num_elems(1);
    let x = 0i32;

    let timed = |name: &str, call: &mut dyn FnMut() -> Result<(), Box<dyn std::error::Error>>| {
        for _ in 0..CALLS / 10 {
            call()?;
        }
        stream.synchronize()?;
        let mut timings = Vec::with_capacity(REPEATS);
        for _ in 0..REPEATS {
            let start = Instant::now();
            for _ in 0..CALLS {
                call()?;
            }
            stream.synchronize()?;
            timings.push(start.elapsed().as_nanos() as f64 / f64::from(CALLS));
        }
        timings.sort_by(f64::total_cmp);
        println!("{name} {:.1}", timings[REPEATS / 2]);
        Ok::<(), Box<dyn std::error::Error>>(())
    };
    timed("memcpy_htod-256B", &mut || {
        stream.memcpy_htod(&host, &mut device)?;
        Ok(())
    })?;
    timed("launch_builder-empty-kernel", &mut || {
        // SAFETY: the kernel takes one int and touches no memory.
        unsafe { stream.launch_builder(&empty).arg(&x).launch(cfg) }?;
        Ok(())
    })?;
    timed("CudaStream::synchronize", &mut || {
        stream.synchronize()?;
        Ok(())
    })?;
    Ok(())
}
