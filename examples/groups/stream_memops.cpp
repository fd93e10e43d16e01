// Stream memory operations: the MEMOP group. A stream waits on a 32-bit word of page-locked host
// memory that the host sets later (cuStreamWaitValue32), writes a 64-bit value to device memory
// (cuStreamWriteValue64) that a kernel then copies, and writes a 32-bit word the host polls
// (cuStreamWriteValue32); a 64-bit wait the host releases (cuStreamWaitValue64); a batch of a
// wait and two writes (cuStreamBatchMemOp). The host sees each write, the kernel the stream's.
// Each wait is seen holding: the host looks long after a stream that did not wait would have
// written. Rust program: stream_memops.rs.
#include "common.h"

int main(int argc, char** argv) {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    CUmodule module = load_module(argc, argv, "stream_memops.ptx");
    CUfunction observe = NULL;
    if (!check(cuModuleGetFunction(&observe, module, "observe"))) return finish();

    // Host words the GPU reads and writes: flag (0), done (1), and a 64-bit word at byte 8.
    void* host = NULL;
    if (!check(cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_DEVICEMAP))) return finish();
    memset(host, 0, 4096);
    volatile unsigned int* words = (volatile unsigned int*)host;
    volatile unsigned long long* word64 = (volatile unsigned long long*)((char*)host + 8);
    CUdeviceptr on_device = 0;
    check(cuMemHostGetDevicePointer(&on_device, host, 0));
    CUdeviceptr flag = on_device, done = on_device + 4, host64 = on_device + 8;
    CUdeviceptr written = 0, seen = 0;
    check(cuMemAlloc(&written, 8));
    check(cuMemAlloc(&seen, 8));
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    // Wait for the host's flag, then (after a delay, so that the results are certainly not there
    // before the host synchronises) write the value, let the kernel copy it, and say done. The
    // host looks at done twice the delay after queuing: a stream that did not wait would have
    // written it by then.
    const unsigned long long value = 0x1122334455667788ull;
    check(cuStreamWaitValue32(stream, flag, 1, CU_STREAM_WAIT_VALUE_GEQ));
    delay(stream);
    check(cuStreamWriteValue64(stream, written, value, 0));
    void* args[] = {&written, &seen};
    check(cuLaunchKernel(observe, 1, 1, 1, 1, 1, 1, 0, stream, args, NULL));
    check(cuStreamWriteValue32(stream, done, 1, 0));
    sleep_ms(2 * DELAY_MS);
    printf("before the flag: done = %u\n", words[1]);
    expect(words[1] == 0, "the stream waits for the flag");
    words[0] = 1;
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the stream's work done after cuStreamSynchronize");
    printf("after the flag: done = %u\n", words[1]);
    expect(words[1] == 1, "the stream wrote done after the host set the flag");
    unsigned long long copied = 0;
    check(cuMemcpyDtoH(&copied, seen, 8));
    printf("the kernel saw 0x%llx\n", copied);
    expect(copied == value, "the kernel saw the stream's 64-bit write");

    // A 64-bit wait the host releases.
    check(cuStreamWaitValue64(stream, host64, 42, CU_STREAM_WAIT_VALUE_EQ));
    check(cuStreamWriteValue32(stream, done, 2, 0));
    sleep_ms(DELAY_MS);
    printf("before the 64-bit word: done = %u\n", words[1]);
    expect(words[1] == 1, "the stream waits for the 64-bit word");
    *word64 = 42;
    bool arrived = wait_for(&words[1], 2);
    printf("after the 64-bit word: done = %u\n", words[1]);
    expect(arrived, "the stream wrote done after the host's 64-bit word");

    // A batch: a wait that holds already, a 32-bit write the host sees, a 64-bit one on the device.
    CUstreamBatchMemOpParams ops[3];
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = flag;
    ops[0].waitValue.value = 1;
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[1].writeValue.address = done;
    ops[1].writeValue.value = 3;
    ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    ops[2].writeValue.address = written;
    ops[2].writeValue.value64 = 7;
    delay(stream);
    check(cuStreamBatchMemOp(stream, 3, ops, 0));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the batch done after cuStreamSynchronize");
    check(cuMemcpyDtoH(&copied, written, 8));
    printf("after the batch: done = %u, device word = %llu\n", words[1], copied);
    expect(words[1] == 3 && copied == 7, "the batch's writes arrived");

    check(cuStreamDestroy(stream));
    check(cuMemFree(seen));
    check(cuMemFree(written));
    check(cuMemFreeHost(host));
    check(cuModuleUnload(module));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
