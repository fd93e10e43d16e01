//! EGL interop through `cuda_driver_sys::egl` on a GPU, with no display (the OpenGL context of
//! `gl_interop.rs`, through headless EGL: `headless_gl`), every function of `cudaEGL.h` called:
//!
//! - an EGLStream (`eglCreateStreamKHR`) with CUDA at both ends, in one process as NVIDIA's
//!   EGLStream_CUDA_Interop sample has them (the producer in a context of its own): the consumer
//!   connects (`cuEGLStreamConsumerConnect`, then on a second stream
//!   `cuEGLStreamConsumerConnectWithFlags`), the producer connects (`cuEGLStreamProducerConnect`)
//!   and presents frames of known content, pitched and CUDA arrays by turns
//!   (`cuEGLStreamProducerPresentFrame`); the consumer acquires each
//!   (`cuEGLStreamConsumerAcquireFrame`, `cuGraphicsResourceGetMappedEglFrame`), every element is
//!   checked, it releases it (`cuEGLStreamConsumerReleaseFrame`) and the producer gets it back
//!   (`cuEGLStreamProducerReturnFrame`: not while the consumer holds it, and the frame presented
//!   after); both disconnect (`cuEGLStreamProducerDisconnect`, `cuEGLStreamConsumerDisconnect`);
//! - an EGLImage of a GL texture (`eglCreateImageKHR`, `EGL_GL_TEXTURE_2D_KHR`) registered with
//!   `cuGraphicsEGLRegisterImage`: CUDA reads what GL wrote through
//!   `cuGraphicsResourceGetMappedEglFrame`'s frame (the other way, GL's `glGetTexImage` did not see
//!   what CUDA wrote through the frame on an H200, driver 580.159.04: 0 of 49152 texels, so it is
//!   not claimed);
//! - a CUDA event from an EGL fence sync (`EGL_SYNC_FENCE_KHR`, the type NVIDIA's
//!   EGLSync_CUDAEvent_Interop sample gives `cuEventCreateFromEGLSync`): GL copies into a texture
//!   after a long chain of copies and puts the fence after it; CUDA waits on the event
//!   (`cuStreamWaitEvent`) and copies the texture out through its EGLImage, which must hold what
//!   GL's last copy wrote. `cuEventCreateFromEGLSync` is reached through `cuGetProcAddress`:
//!   x86-64 drivers lack it (`tests/common`'s `MAY_BE_ABSENT`); then the test prints
//!   `WAIVED: ` with the driver's answer, which the GPU runner reports apart from what passed.
//!
//! Each test prints the EGL extensions there are and those it relies on, then its checks:
//! `<what>: <same> of <elements>` or `<what>: ok`, a failed one `FAILED: <what>`.
//! `CUDA_GL_CONTROL=<name>` runs a wrong variant of one step ([`CONTROLS`]) that one check must
//! catch. Every wait is bounded ([`WAIT`]). Where EGL or the driver refuses a step (an extension
//! missing, a call failing), the test prints EGL's error code or the driver's answer and fails.
//!
//! Ignored in `cargo test` (it needs a GPU and the EGL/OpenGL loaders); the GPU bundle's runner
//! runs it with `--ignored` after unpacking the carried loaders, as `gl_interop`.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr;
use std::time::Duration;

use cuda_driver_sys::*;

#[macro_use]
mod headless_gl;
use headless_gl::{
    control, copy_3d, pattern, result_name, wait_for, Checks, Headless, Surface, EGL_NONE,
};

// EGL/eglext.h values (glvnd 1.6 headers, Debian bookworm).
const EGL_TRUE: c_int = 1;
const EGL_FALSE: c_int = 0;
const EGL_GL_TEXTURE_2D_KHR: c_uint = 0x30B1;
const EGL_IMAGE_PRESERVED_KHR: c_int = 0x30D2;
const EGL_SYNC_FENCE_KHR: c_uint = 0x30F9;
const EGL_STREAM_STATE_KHR: c_uint = 0x3214;
const EGL_STREAM_STATE_NEW_FRAME_AVAILABLE_KHR: c_int = 0x3218;
const EGL_SUPPORT_REUSE_NV: c_int = 0x3335;

/// This test's controls (`CUDA_GL_CONTROL=<name>`), each a wrong variant of one step that one
/// check must catch:
/// - `stream-no-write`: the producer presents stream 1's frame 1 without writing it;
/// - `stream-early-release`: the consumer releases stream 1's frame 0 before the producer asks
///   for it back (so it comes back while it should be held);
/// - `stream-late-release`: the consumer releases stream 2's last frame only after the producer
///   has waited for it;
/// - `eglimage-no-gl-write`: GL does not write the EGLImage's texture;
/// - `sync-no-wait`: CUDA copies without waiting on the event of GL's fence (this one fails only
///   while GL's chain of copies is still running when CUDA copies).
const CONTROLS: &[&str] = &[
    "stream-no-write",
    "stream-early-release",
    "stream-late-release",
    "eglimage-no-gl-write",
    "sync-no-wait",
];

/// How long a frame may take to arrive or come back, and CUDA's copy to wait for GL's fence.
const WAIT: Duration = Duration::from_secs(5);

type Display = *mut c_void;
type CreateStream = unsafe extern "C" fn(Display, *const c_int) -> EGLStreamKHR;
type DestroyStream = unsafe extern "C" fn(Display, EGLStreamKHR) -> c_uint;
type QueryStream = unsafe extern "C" fn(Display, EGLStreamKHR, c_uint, *mut c_int) -> c_uint;
type CreateImage =
    unsafe extern "C" fn(Display, *mut c_void, c_uint, *mut c_void, *const c_int) -> EGLImageKHR;
type DestroyImage = unsafe extern "C" fn(Display, EGLImageKHR) -> c_uint;
type CreateSync = unsafe extern "C" fn(Display, c_uint, *const c_int) -> EGLSyncKHR;
type DestroySync = unsafe extern "C" fn(Display, EGLSyncKHR) -> c_uint;

/// An EGL stream state's name (EGL/eglext.h, EGL_KHR_stream).
fn state_name(state: c_int) -> String {
    let name = match state {
        0x3215 => "EGL_STREAM_STATE_CREATED_KHR",
        0x3216 => "EGL_STREAM_STATE_CONNECTING_KHR",
        0x3217 => "EGL_STREAM_STATE_EMPTY_KHR",
        0x3218 => "EGL_STREAM_STATE_NEW_FRAME_AVAILABLE_KHR",
        0x3219 => "EGL_STREAM_STATE_OLD_FRAME_AVAILABLE_KHR",
        0x321A => "EGL_STREAM_STATE_DISCONNECTED_KHR",
        other => return format!("EGL stream state {other:#x}"),
    };
    name.to_string()
}

/// What a CUDA EGL frame is: its type, size, planes, channels and formats.
fn describe(frame: &CUeglFrame) -> String {
    let kind = if frame.frameType == CU_EGL_FRAME_TYPE_PITCH {
        format!("a pitched frame (pitch {})", frame.pitch)
    } else {
        "an array frame".to_string()
    };
    format!(
        "{kind} of {} x {} x {}, {} plane(s), {} channel(s), CUeglColorFormat {}, \
         CUarray_format {}",
        frame.width,
        frame.height,
        frame.depth,
        frame.planeCount,
        frame.numChannels,
        frame.eglColorFormat.0,
        frame.cuFormat.0
    )
}

/// The first plane of a CUDA EGL frame, as a copy's side.
fn plane(frame: &CUeglFrame) -> Surface {
    // SAFETY: the frame type says which member of the union the driver filled.
    unsafe {
        if frame.frameType == CU_EGL_FRAME_TYPE_PITCH {
            Surface::Pitched(frame.frame.pPitch[0] as CUdeviceptr, frame.pitch as usize)
        } else {
            Surface::Array(frame.frame.pArray[0])
        }
    }
}

/// Makes `ctx` current for `f`, then the context that was.
fn within<T>(ctx: CUcontext, f: impl FnOnce() -> T) -> T {
    check_cu!(cuCtxPushCurrent(ctx));
    let v = f();
    let mut popped: CUcontext = ptr::null_mut();
    check_cu!(cuCtxPopCurrent(&mut popped));
    v
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn egl_stream_carries_frames_from_a_cuda_producer_to_a_cuda_consumer() {
    headless_gl::check_control(CONTROLS);
    match streams() {
        Ok(checks) => checks.finish(),
        Err(e) => panic!("EGLStream from a CUDA producer to a CUDA consumer: {e}"),
    }
}

/// The frames' size, in 4-byte (ARGB, 8 bits a channel) elements.
const FW: usize = 320;
const FH: usize = 240;
/// Frames per stream: pitched and array by turns.
const FRAMES: u32 = 4;

/// What the stream test holds: EGL's stream functions, the consumer's CUDA stream (in the current
/// context, the device's primary one), the producer's context (pushed around its calls), its CUDA
/// stream and its two frame buffers.
struct Ends<'a> {
    headless: &'a Headless,
    create: CreateStream,
    destroy: DestroyStream,
    query: QueryStream,
    /// `EGL_SUPPORT_REUSE_NV` settable (EGL_NV_stream_reset): set to `EGL_FALSE`, so that a
    /// released frame goes back to the producer, as NVIDIA's samples set it.
    reset: bool,
    consumer_stream: CUstream,
    producer_ctx: CUcontext,
    producer_stream: CUstream,
    pitched: CUdeviceptr,
    array: CUarray,
}

/// Two EGL streams from a CUDA producer to a CUDA consumer ([`Ends::stream`]); the producer's
/// context, CUDA stream and frame buffers serve both.
fn streams() -> Result<Checks, String> {
    let headless = Headless::up()?;
    headless.require(&["EGL_KHR_stream"])?;
    let reset = headless
        .extensions(true)
        .split_whitespace()
        .any(|e| e == "EGL_NV_stream_reset");
    println!(
        "EGL extension EGL_NV_stream_reset: {}",
        if reset {
            "present (streams created with EGL_SUPPORT_REUSE_NV = EGL_FALSE)"
        } else {
            "absent (streams created without EGL_SUPPORT_REUSE_NV)"
        }
    );
    let (device, _) = headless_gl::cuda_on_gl_device();
    // The producer: a context of its own on the same device, as NVIDIA's sample has it, created
    // through the driver-entry table: CUDA 13's cuCtxCreate is cuCtxCreate_v4, which a 12.x driver
    // library lacks, and the table binds it only when called (a linked call would stop the test
    // from loading there, as it did in CI on the 535 library).
    let mut producer_ctx: CUcontext = ptr::null_mut();
    #[cfg(not(feature = "cuda-13000"))]
    check_cu!(table().cuCtxCreate(&mut producer_ctx, 0, device));
    #[cfg(feature = "cuda-13000")] // CUDA 13: cuCtxCreate_v4, with a CUctxCreateParams* (NULL)
    check_cu!(table().cuCtxCreate(&mut producer_ctx, ptr::null_mut(), 0, device));
    check_cu!(cuCtxPopCurrent(&mut producer_ctx));
    let (mut consumer_stream, mut producer_stream) = (ptr::null_mut(), ptr::null_mut());
    check_cu!(cuStreamCreate(
        &mut consumer_stream,
        CU_STREAM_NON_BLOCKING.0
    ));
    let (mut pitched, mut array): (CUdeviceptr, CUarray) = (0, ptr::null_mut());
    within(producer_ctx, || {
        check_cu!(cuStreamCreate(
            &mut producer_stream,
            CU_STREAM_NON_BLOCKING.0
        ));
        check_cu!(cuMemAlloc(&mut pitched, FW * FH * 4));
        check_cu!(cuMemsetD32(pitched, 0, FW * FH));
        // As the sample's: a 3D array of depth 1 that surfaces may load and store.
        let desc = CUDA_ARRAY3D_DESCRIPTOR {
            Width: FW,
            Height: FH,
            Depth: 1,
            Format: CU_AD_FORMAT_UNSIGNED_INT8,
            NumChannels: 4,
            Flags: CUDA_ARRAY3D_SURFACE_LDST,
        };
        check_cu!(cuArray3DCreate(&mut array, &desc));
        let mut zeros = vec![0u32; FW * FH];
        copy_3d(Surface::Array(array), &mut zeros, FW, FH, true, None);
    });
    let ends = Ends {
        headless: &headless,
        create: unsafe { headless.proc(c"eglCreateStreamKHR")? },
        destroy: unsafe { headless.proc(c"eglDestroyStreamKHR")? },
        query: unsafe { headless.proc(c"eglQueryStreamKHR")? },
        reset,
        consumer_stream,
        producer_ctx,
        producer_stream,
        pitched,
        array,
    };
    let mut checks = Checks::default();
    for n in [1, 2] {
        ends.stream(n, &mut checks)?;
    }
    within(producer_ctx, || {
        check_cu!(cuMemFree(pitched));
        check_cu!(cuArrayDestroy(array));
        check_cu!(cuStreamDestroy(producer_stream));
    });
    check_cu!(cuCtxDestroy(producer_ctx));
    check_cu!(cuStreamDestroy(consumer_stream));
    check_cu!(cuDevicePrimaryCtxRelease(device));
    Ok(checks)
}

impl Ends<'_> {
    /// The stream's state (`eglQueryStreamKHR`).
    fn state(&self, stream: EGLStreamKHR) -> Result<c_int, String> {
        let mut state = 0;
        let display = self.headless.display;
        if unsafe { (self.query)(display, stream, EGL_STREAM_STATE_KHR, &mut state) } == 0 {
            return Err(self
                .headless
                .error("eglQueryStreamKHR(EGL_STREAM_STATE_KHR)"));
        }
        Ok(state)
    }

    /// `cuEGLStreamProducerReturnFrame` until it returns a frame or answers other than
    /// `CUDA_ERROR_LAUNCH_TIMEOUT` (no frame to return yet), for at most `limit`: its last answer,
    /// and the frame.
    fn return_frame(
        &self,
        producer: &mut CUeglStreamConnection,
        limit: Duration,
    ) -> (CUresult, CUeglFrame) {
        let mut frame = CUeglFrame::default();
        let mut code = CUDA_ERROR_LAUNCH_TIMEOUT;
        let mut stream = self.producer_stream;
        within(self.producer_ctx, || {
            wait_for(limit, || {
                code = unsafe { cuEGLStreamProducerReturnFrame(producer, &mut frame, &mut stream) };
                (code != CUDA_ERROR_LAUNCH_TIMEOUT).then_some(())
            })
        });
        (code, frame)
    }

    /// Releases the consumer's frame `resource`, and waits for the release.
    fn release(&self, consumer: &mut CUeglStreamConnection, resource: CUgraphicsResource) {
        let mut stream = self.consumer_stream;
        check_cu!(cuEGLStreamConsumerReleaseFrame(
            consumer,
            resource,
            &mut stream
        ));
        check_cu!(cuStreamSynchronize(stream));
    }

    /// Stream `n`: both ends connect, [`FRAMES`] frames cross it and go back, both disconnect.
    /// The consumer connects by `cuEGLStreamConsumerConnect` on stream 1, by
    /// `cuEGLStreamConsumerConnectWithFlags` (video memory) on stream 2.
    fn stream(&self, n: u32, checks: &mut Checks) -> Result<(), String> {
        let display = self.headless.display;
        let attribs = if self.reset {
            vec![EGL_SUPPORT_REUSE_NV, EGL_FALSE, EGL_NONE]
        } else {
            vec![EGL_NONE]
        };
        let stream = unsafe { (self.create)(display, attribs.as_ptr()) };
        if stream.is_null() {
            return Err(self.headless.error("eglCreateStreamKHR"));
        }
        // The consumer first, as EGL_KHR_stream orders it; the consumer's context is current.
        let mut consumer: CUeglStreamConnection = ptr::null_mut();
        let how = if n == 2 {
            let flags = CU_EGL_RESOURCE_LOCATION_VIDMEM.0;
            check_cu!(cuEGLStreamConsumerConnectWithFlags(
                &mut consumer,
                stream,
                flags
            ));
            "cuEGLStreamConsumerConnectWithFlags(CU_EGL_RESOURCE_LOCATION_VIDMEM)"
        } else {
            check_cu!(cuEGLStreamConsumerConnect(&mut consumer, stream));
            "cuEGLStreamConsumerConnect"
        };
        let after_consumer = self.state(stream)?;
        let mut producer: CUeglStreamConnection = ptr::null_mut();
        within(self.producer_ctx, || {
            check_cu!(cuEGLStreamProducerConnect(
                &mut producer,
                stream,
                FW as EGLint,
                FH as EGLint
            ));
        });
        println!(
            "stream {n}: the consumer connected by {how} ({}), the producer by \
             cuEGLStreamProducerConnect ({})",
            state_name(after_consumer),
            state_name(self.state(stream)?)
        );

        for k in 0..FRAMES {
            let pitched = k % 2 == 0;
            let (kind, surface, handle) = if pitched {
                let surface = Surface::Pitched(self.pitched, FW * 4);
                ("pitched", surface, self.pitched as usize)
            } else {
                ("array", Surface::Array(self.array), self.array as usize)
            };
            // The producer writes the frame and presents it.
            let mut presented = pattern(100 * n + k, 0, FW, FH);
            let mut frame = CUeglFrame {
                width: FW as u32,
                height: FH as u32,
                depth: 1,
                planeCount: 1,
                numChannels: 4,
                eglColorFormat: CU_EGL_COLOR_FORMAT_ARGB,
                cuFormat: CU_AD_FORMAT_UNSIGNED_INT8,
                ..Default::default()
            };
            if pitched {
                frame.frame.pPitch = [
                    self.pitched as *mut c_void,
                    ptr::null_mut(),
                    ptr::null_mut(),
                ];
                frame.pitch = (FW * 4) as u32;
                frame.frameType = CU_EGL_FRAME_TYPE_PITCH;
            } else {
                frame.frame.pArray = [self.array, ptr::null_mut(), ptr::null_mut()];
                frame.frameType = CU_EGL_FRAME_TYPE_ARRAY;
            }
            within(self.producer_ctx, || {
                if !(control("stream-no-write") && n == 1 && k == 1) {
                    copy_3d(surface, &mut presented, FW, FH, true, None);
                }
                let mut stream = self.producer_stream;
                check_cu!(cuEGLStreamProducerPresentFrame(
                    &mut producer,
                    frame,
                    &mut stream
                ));
            });
            let mut last = 0;
            let arrived = wait_for(WAIT, || match self.state(stream) {
                Ok(EGL_STREAM_STATE_NEW_FRAME_AVAILABLE_KHR) => Some(Ok(())),
                Ok(state) => {
                    last = state;
                    None
                }
                Err(e) => Some(Err(e)),
            });
            arrived.ok_or_else(|| {
                format!(
                    "stream {n} frame {k}: no new frame within {WAIT:?} of \
                     cuEGLStreamProducerPresentFrame (the stream's state: {})",
                    state_name(last)
                )
            })??;

            // The consumer acquires it and reads every element.
            let mut resource: CUgraphicsResource = ptr::null_mut();
            let mut consumer_stream = self.consumer_stream;
            let timeout_us = WAIT.as_micros() as c_uint;
            check_cu!(cuEGLStreamConsumerAcquireFrame(
                &mut consumer,
                &mut resource,
                &mut consumer_stream,
                timeout_us
            ));
            let mut got = CUeglFrame::default();
            check_cu!(cuGraphicsResourceGetMappedEglFrame(
                &mut got, resource, 0, 0
            ));
            check_cu!(cuStreamSynchronize(consumer_stream));
            println!(
                "stream {n} frame {k}: presented {kind}, acquired {}",
                describe(&got)
            );
            let mut acquired = vec![0u32; FW * FH];
            copy_3d(plane(&got), &mut acquired, FW, FH, false, None);
            checks.all(
                &format!("stream {n} frame {k} ({kind}): elements acquired as presented"),
                &acquired,
                &presented,
            );

            // Nothing goes back to the producer while the consumer holds frame 0.
            let mut released = false;
            let mut returned = None;
            if k == 0 {
                if control("stream-early-release") && n == 1 {
                    self.release(&mut consumer, resource);
                    released = true;
                }
                let (code, frame) = self.return_frame(&mut producer, Duration::from_secs(1));
                println!(
                    "stream {n}: cuEGLStreamProducerReturnFrame for 1 s while the consumer holds \
                     frame 0: {}",
                    result_name(code)
                );
                checks.expect(
                    code == CUDA_ERROR_LAUNCH_TIMEOUT,
                    &format!(
                        "stream {n}: no frame returns to the producer while the consumer holds it"
                    ),
                );
                returned = (code == CUDA_SUCCESS).then_some(frame);
            }
            // Released, it goes back.
            let late = control("stream-late-release") && n == 2 && k == FRAMES - 1;
            if !released && !late {
                self.release(&mut consumer, resource);
            }
            let (code, frame) = match returned {
                Some(frame) => (CUDA_SUCCESS, frame),
                None => self.return_frame(&mut producer, WAIT),
            };
            // SAFETY: both members of the union are pointers; the one presented is compared.
            let back = unsafe { frame.frame.pPitch[0] } as usize;
            println!(
                "stream {n} frame {k}: cuEGLStreamProducerReturnFrame after the release: {}{}",
                result_name(code),
                if code == CUDA_SUCCESS && back != handle {
                    " (another frame)"
                } else {
                    ""
                }
            );
            checks.expect(
                code == CUDA_SUCCESS && back == handle,
                &format!(
                    "stream {n} frame {k}: back at the producer once the consumer released it"
                ),
            );
            if late {
                self.release(&mut consumer, resource);
                let (code, _) = self.return_frame(&mut producer, WAIT);
                println!(
                    "stream {n} frame {k}: cuEGLStreamProducerReturnFrame after the late \
                     release: {}",
                    result_name(code)
                );
            }
        }

        within(self.producer_ctx, || {
            check_cu!(cuEGLStreamProducerDisconnect(&mut producer));
        });
        let after_producer = self.state(stream)?;
        check_cu!(cuEGLStreamConsumerDisconnect(&mut consumer));
        println!(
            "stream {n}: the producer disconnected ({}), then the consumer",
            state_name(after_producer)
        );
        if unsafe { (self.destroy)(display, stream) } == 0 {
            return Err(self.headless.error("eglDestroyStreamKHR"));
        }
        Ok(())
    }
}

/// An EGLImage of `tex` (`eglCreateImageKHR`, `EGL_GL_TEXTURE_2D_KHR`, its content preserved),
/// registered with `cuGraphicsEGLRegisterImage`: the image, the resource and its frame
/// (`cuGraphicsResourceGetMappedEglFrame`).
fn register_image(
    headless: &Headless,
    create: CreateImage,
    tex: GLuint,
) -> Result<(EGLImageKHR, CUgraphicsResource, CUeglFrame), String> {
    let attribs = [EGL_IMAGE_PRESERVED_KHR, EGL_TRUE, EGL_NONE];
    let buffer = tex as usize as *mut c_void; // EGLClientBuffer: the texture's name
    let image = unsafe {
        create(
            headless.display,
            headless.context,
            EGL_GL_TEXTURE_2D_KHR,
            buffer,
            attribs.as_ptr(),
        )
    };
    if image.is_null() {
        return Err(headless.error("eglCreateImageKHR(EGL_GL_TEXTURE_2D_KHR)"));
    }
    let mut resource: CUgraphicsResource = ptr::null_mut();
    check_cu!(cuGraphicsEGLRegisterImage(
        &mut resource,
        image,
        CU_GRAPHICS_REGISTER_FLAGS_NONE.0
    ));
    let mut frame = CUeglFrame::default();
    check_cu!(cuGraphicsResourceGetMappedEglFrame(
        &mut frame, resource, 0, 0
    ));
    Ok((image, resource, frame))
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn egl_image_of_a_gl_texture_is_read_and_written_by_cuda() {
    headless_gl::check_control(CONTROLS);
    match image() {
        Ok(checks) => checks.finish(),
        Err(e) => panic!("EGLImage of a GL texture in CUDA: {e}"),
    }
}

/// GL writes a texture once CUDA registered its EGLImage, and CUDA reads it through the image's
/// frame. The application orders the two (the driver does not: no map): `glFinish` before CUDA,
/// as `cuGraphicsEGLRegisterImage`'s documentation says.
fn image() -> Result<Checks, String> {
    let headless = Headless::up()?;
    headless.require(&["EGL_KHR_image_base", "EGL_KHR_gl_texture_2D_image"])?;
    let create: CreateImage = unsafe { headless.proc(c"eglCreateImageKHR")? };
    let destroy: DestroyImage = unsafe { headless.proc(c"eglDestroyImageKHR")? };
    let (device, _) = headless_gl::cuda_on_gl_device();
    let mut checks = Checks::default();
    const W: usize = 256;
    const H: usize = 192;
    let tex = headless.texture(W, H, 1)?;
    unsafe { (headless.gl.finish)() };
    let (image, resource, frame) = register_image(&headless, create, tex)?;
    println!(
        "EGLImage of a GL texture {W} x {H} (GL_RGBA8): {}",
        describe(&frame)
    );
    // GL writes the texture once CUDA has it registered, as a renderer writes each frame.
    let written = pattern(5, 0, W, H);
    if !control("eglimage-no-gl-write") {
        headless.write_texture(tex, 0, W, H, &written)?;
    }
    unsafe { (headless.gl.finish)() };
    let mut read = vec![0u32; W * H];
    copy_3d(plane(&frame), &mut read, W, H, false, None);
    checks.all(
        "EGLImage: texels GL wrote (glTexSubImage2D) as CUDA reads them through \
         cuGraphicsResourceGetMappedEglFrame's frame",
        &read,
        &written,
    );
    check_cu!(cuGraphicsUnregisterResource(resource));
    if unsafe { destroy(headless.display, image) } == 0 {
        return Err(headless.error("eglDestroyImageKHR"));
    }
    unsafe { (headless.gl.delete_textures)(1, &tex) };
    check_cu!(cuDevicePrimaryCtxRelease(device));
    Ok(checks)
}

#[test]
#[ignore = "needs a GPU and libEGL/libOpenGL: cargo xtask gpu-run runs it"]
fn egl_fence_sync_orders_cuda_after_gl_through_an_event() {
    headless_gl::check_control(CONTROLS);
    match sync() {
        Ok(checks) => checks.finish(),
        Err(e) => panic!("CUDA event from an EGL fence: {e}"),
    }
}

/// GL copies a known texture into the EGLImage's texture after a chain of copies long enough to
/// be running still when CUDA is asked to copy the texture out; GL's fence after that copy
/// becomes a CUDA event (`cuEventCreateFromEGLSync`), which CUDA's stream waits on before its copy.
/// CUDA must read what GL's last copy wrote.
fn sync() -> Result<Checks, String> {
    let headless = Headless::up()?;
    headless.require(&[
        "EGL_KHR_fence_sync",
        "EGL_KHR_image_base",
        "EGL_KHR_gl_texture_2D_image",
    ])?;
    let (device, _) = headless_gl::cuda_on_gl_device();
    let create_event = match egl::entry::cuEventCreateFromEGLSync.get() {
        Ok(create_event) => create_event,
        // The x86-64 drivers have no such symbol (Jetson's have): nothing to test here, which
        // the GPU runner reports as waived, apart from what passed.
        Err(e) if e.kind == ProcAddressErrorKind::SymbolNotFound => {
            println!("WAIVED: cuEventCreateFromEGLSync: not in this driver ({e})");
            return Ok(Checks::default());
        }
        Err(e) => return Err(format!("cuEventCreateFromEGLSync: {e}")),
    };
    println!("cuEventCreateFromEGLSync: in this driver (cuGetProcAddress)");
    let create_image: CreateImage = unsafe { headless.proc(c"eglCreateImageKHR")? };
    let destroy_image: DestroyImage = unsafe { headless.proc(c"eglDestroyImageKHR")? };
    let create_sync: CreateSync = unsafe { headless.proc(c"eglCreateSyncKHR")? };
    let destroy_sync: DestroySync = unsafe { headless.proc(c"eglDestroySyncKHR")? };
    let gl = &headless.gl;
    let mut checks = Checks::default();

    // The texture CUDA reads (zeroed: what it reads where it does not wait), the one GL copies
    // into it last, and two large ones the chain copies between (64 MiB each).
    const T: usize = 1024;
    const BIG: usize = 4096;
    const CHAIN: u32 = 256;
    let target = headless.texture(T, T, 1)?;
    let source = headless.texture(T, T, 1)?;
    let expected = pattern(7, 0, T, T);
    headless.write_texture(source, 0, T, T, &expected)?;
    let (a, b) = (
        headless.texture(BIG, BIG, 1)?,
        headless.texture(BIG, BIG, 1)?,
    );
    unsafe { (gl.finish)() };
    let (image, resource, frame) = register_image(&headless, create_image, target)?;
    let mut stream: CUstream = ptr::null_mut();
    check_cu!(cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0));
    let mut host: *mut c_void = ptr::null_mut();
    check_cu!(cuMemAllocHost(&mut host, T * T * 4));
    // SAFETY: `host` is a page-locked allocation of T * T words, freed at the end.
    let read = unsafe { std::slice::from_raw_parts_mut(host as *mut u32, T * T) };
    read.fill(0);

    let copy = |from: GLuint, to: GLuint, size: usize| unsafe {
        let (target_2d, s) = (headless_gl::GL_TEXTURE_2D, size as c_int);
        (gl.copy_image_sub_data)(
            from, target_2d, 0, 0, 0, 0, to, target_2d, 0, 0, 0, 0, s, s, 1,
        );
    };
    for i in 0..CHAIN {
        let (from, to) = if i % 2 == 0 { (a, b) } else { (b, a) };
        copy(from, to, BIG);
    }
    copy(source, target, T);
    headless.gl_ok("glCopyImageSubData")?;
    let none = [EGL_NONE];
    let fence = unsafe { create_sync(headless.display, EGL_SYNC_FENCE_KHR, none.as_ptr()) };
    if fence.is_null() {
        return Err(headless.error("eglCreateSyncKHR(EGL_SYNC_FENCE_KHR)"));
    }
    unsafe { (gl.flush)() };
    let mut event: CUevent = ptr::null_mut();
    check_cu!(create_event(&mut event, fence, CU_EVENT_DEFAULT.0));
    if !control("sync-no-wait") {
        check_cu!(cuStreamWaitEvent(stream, event, 0));
    }
    copy_3d(plane(&frame), read, T, T, false, Some(stream));
    let done = wait_for(WAIT, || match unsafe { cuStreamQuery(stream) } {
        CUDA_ERROR_NOT_READY => None,
        code => Some(code),
    });
    match done {
        None => {
            return Err(format!(
                "CUDA's copy after cuStreamWaitEvent did not finish within {WAIT:?}: the event of \
                 GL's fence never completed"
            ))
        }
        Some(CUDA_SUCCESS) => {}
        Some(code) => return Err(format!("cuStreamQuery: {}", result_name(code))),
    }
    checks.all(
        "EGLSync: texels CUDA copied after waiting on the event of GL's fence, as GL's last copy \
         wrote them",
        read,
        &expected,
    );
    check_cu!(cuEventDestroy(event));
    if unsafe { destroy_sync(headless.display, fence) } == 0 {
        return Err(headless.error("eglDestroySyncKHR"));
    }
    check_cu!(cuGraphicsUnregisterResource(resource));
    if unsafe { destroy_image(headless.display, image) } == 0 {
        return Err(headless.error("eglDestroyImageKHR"));
    }
    check_cu!(cuMemFreeHost(host));
    check_cu!(cuStreamDestroy(stream));
    unsafe { (gl.delete_textures)(4, [target, source, a, b].as_ptr()) };
    check_cu!(cuDevicePrimaryCtxRelease(device));
    Ok(checks)
}
