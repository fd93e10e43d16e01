// Between processes, in the manner of NVIDIA's memMapIPCDrv: a parent and a child it spawns (the
// same program, started anew, never forked after CUDA is initialised) share device memory three
// ways over a Unix socket: a legacy IPC memory handle (cuIpcGetMemHandle, cuIpcOpenMemHandle,
// cuIpcCloseMemHandle), an IPC event handle (cuIpcGetEventHandle, cuIpcOpenEventHandle), and a
// memory pool exported as a POSIX file descriptor passed with SCM_RIGHTS, with a pointer of it
// (cuMemPoolExportToShareableHandle, ExportPointer; ImportFromShareableHandle, ImportPointer,
// SetAccess, GetAccess). Checked: the child finds the parent's words through the opened handle
// and the imported pool; the parent finds the child's words in the pool's memory; and the event
// orders work across the two processes: the child queues a kernel that writes the legacy IPC
// memory 300 ms after it starts, records the opened event right after it and tells the parent at
// once; the parent's stream waits for the event (cuStreamWaitEvent), then copies the memory out,
// which must hold the child's words. Control no_wait: the parent does not wait, so its copy reads
// the memory before the child's kernel wrote it, and that check fails. The other work in a stream
// waits behind a delay, so that the stream's query after the synchronisation shows that the host
// waited. The parent prints what it found after the child has exited, so that the child's output
// comes first. Kernel: examples/kernels/late_write.ptx; argv[1] is the kernels folder. Rust
// program: ipc.rs.
#include "common.h"
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static const size_t N = 1 << 16;  // words of each buffer
static const size_t BYTES = N * sizeof(unsigned int);
// How long the child's kernel waits before it writes: far longer than the parent takes to read.
static const unsigned long long LATE_NS = 300000000ULL;

// What the parent sends besides the pool's file descriptor.
struct Message {
    CUipcMemHandle memory;
    CUipcEventHandle event;
    CUmemPoolPtrExportData pointer;
};

// How many of the N words at `words` hold `value`.
static size_t count_words(const unsigned int* words, unsigned int value) {
    size_t same = 0;
    for (size_t i = 0; i < N; i++) same += words[i] == value;
    return same;
}

// How many words of device memory at `ptr` hold `value`.
static size_t count_value(CUdeviceptr ptr, unsigned int value) {
    unsigned int* back = (unsigned int*)calloc(N, sizeof(unsigned int));
    check(cuMemcpyDtoH(back, ptr, BYTES));
    size_t same = count_words(back, value);
    free(back);
    return same;
}

// The child: checks the parent's data, writes the pool's memory, then queues the late write of the
// legacy IPC memory and records the parent's event after it.
static int child(int argc, char** argv, int socket) {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    check(cuDeviceGet(&device, 0));
    check(cuDevicePrimaryCtxRetain(&context, device));
    check(cuCtxSetCurrent(context));
    CUmodule module = load_module(argc, argv, "late_write.ptx");
    CUfunction late_fill = get_function(module, "late_fill");
    Message message;
    memset(&message, 0, sizeof message);
    int pool_fd = -1;
    char ancillary[CMSG_SPACE(sizeof(int))];
    memset(ancillary, 0, sizeof ancillary);
    struct iovec part = {&message, sizeof message};
    struct msghdr header;
    memset(&header, 0, sizeof header);
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    header.msg_control = ancillary;
    header.msg_controllen = sizeof ancillary;
    ssize_t got = recvmsg(socket, &header, MSG_WAITALL);
    struct cmsghdr* rights = CMSG_FIRSTHDR(&header);
    if (rights != NULL && rights->cmsg_type == SCM_RIGHTS) memcpy(&pool_fd, CMSG_DATA(rights), sizeof pool_fd);
    printf("child: received the handles and %s file descriptor\n", pool_fd >= 0 ? "a" : "no");
    expect(got == (ssize_t)sizeof message && pool_fd >= 0, "the child received the message and the descriptor");
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    CUdeviceptr legacy = 0;
    bool opened = check(cuIpcOpenMemHandle(&legacy, message.memory, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    if (opened) expect_all("child: the parent's words through cuIpcOpenMemHandle", count_value(legacy, 0xa11ce), N);
    CUmemoryPool pool = NULL;
    if (check(cuMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)pool_fd,
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0))) {
        CUmemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check(cuMemPoolSetAccess(pool, &access, 1));
        CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
        CUmemLocation where = access.location;
        check(cuMemPoolGetAccess(&flags, pool, &where));
        printf("child: the imported pool's access from device %d: %d\n", device, (int)flags);
        expect(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "child: the device reads and writes the imported pool");
        CUdeviceptr imported = 0;
        if (check(cuMemPoolImportPointer(&imported, pool, &message.pointer))) {
            expect_all("child: the parent's words through the imported pool", count_value(imported, 0xb0b), N);
            // Written and freed in stream order, as it was allocated, and finished before the
            // parent frees it.
            delay(stream);
            check(cuMemsetD32Async(imported, 0xd00d, N, stream));
            check(cuMemFreeAsync(imported, stream));
            check(cuStreamSynchronize(stream));
            expect_idle(stream, "the child's set and free done after cuStreamSynchronize");
        }
        check(cuMemPoolDestroy(pool));
    }
    close(pool_fd);

    // The late write, the parent's event recorded right after it, and the parent told at once.
    CUevent event = NULL;
    char recorded = 0;
    if (opened && late_fill != NULL && check(cuIpcOpenEventHandle(&event, message.event))) {
        unsigned int n = N, value = 0xc0ffee;
        unsigned long long ns = LATE_NS;
        void* args[] = {&legacy, &n, &value, &ns};
        recorded = check(cuLaunchKernel(late_fill, 1, 1, 1, 256, 1, 1, 0, stream, args, NULL)) &&
                   check(cuEventRecord(event, stream));
    }
    if (recorded) printf("child: queued a late write of the IPC memory, then recorded the parent's event\n");
    fflush(stdout);
    expect(write(socket, &recorded, 1) == 1, "the child told the parent");
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the child's late write done after cuStreamSynchronize");
    if (event != NULL) check(cuEventDestroy(event));
    if (opened) check(cuIpcCloseMemHandle(legacy));
    if (module != NULL) check(cuModuleUnload(module));
    check(cuStreamDestroy(stream));
    check(cuDevicePrimaryCtxRelease(device));
    expect_delays_ran();
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 3 && strcmp(argv[2], "child") == 0) return child(argc, argv, atoi(argv[3]));
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    CUstream stream = NULL;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    Message message;
    memset(&message, 0, sizeof message);

    // Legacy IPC: device memory and an interprocess event.
    CUdeviceptr legacy = 0;
    if (!check(cuMemAlloc(&legacy, BYTES))) return finish();
    check(cuMemsetD32(legacy, 0xa11ce, N));
    check(cuIpcGetMemHandle(&message.memory, legacy));
    CUevent event = NULL;
    check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
    check(cuIpcGetEventHandle(&message.event, event));

    // A pool shareable as a file descriptor, and a pointer of it.
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = device;
    CUmemoryPool pool = NULL;
    if (!check(cuMemPoolCreate(&pool, &props))) return finish();
    CUdeviceptr pooled = 0;
    check(cuMemAllocFromPoolAsync(&pooled, BYTES, pool, stream));
    delay(stream);
    check(cuMemsetD32Async(pooled, 0xb0b, N, stream));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the parent's set done after cuStreamSynchronize");
    int pool_fd = -1;
    check(cuMemPoolExportToShareableHandle(&pool_fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    check(cuMemPoolExportPointer(&message.pointer, pooled));
    printf("parent: exported a memory handle, an event handle, a pool and a pointer\n");

    // The child, spawned with its end of a socket, gets the handles and the pool's descriptor.
    int ends[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) {
        expect(false, "a socket pair");
        return finish();
    }
    fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    char exe[4096] = {0};
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[length > 0 ? length : 0] = '\0';
    char kernels[] = "examples/kernels", child_word[] = "child", socket_word[16];
    snprintf(socket_word, sizeof socket_word, "%d", ends[1]);
    char* child_argv[] = {exe, argc > 1 ? argv[1] : kernels, child_word, socket_word, NULL};
    fflush(stdout);
    pid_t pid = 0;
    if (posix_spawn(&pid, exe, NULL, NULL, child_argv, environ) != 0) {
        expect(false, "the child started");
        return finish();
    }
    close(ends[1]);
    char ancillary[CMSG_SPACE(sizeof(int))];
    memset(ancillary, 0, sizeof ancillary);
    struct iovec part = {&message, sizeof message};
    struct msghdr header;
    memset(&header, 0, sizeof header);
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    header.msg_control = ancillary;
    header.msg_controllen = sizeof ancillary;
    struct cmsghdr* rights = CMSG_FIRSTHDR(&header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(rights), &pool_fd, sizeof pool_fd);
    expect(sendmsg(ends[0], &header, 0) == (ssize_t)sizeof message, "the parent sent the message");

    // The child's late write, read into zeroed page-locked memory by a copy that the parent's stream
    // queues after waiting for the event the child recorded behind it (not waiting in the control
    // no_wait).
    char recorded = 0;
    ssize_t said = read(ends[0], &recorded, 1);
    unsigned int* host = NULL;
    size_t after_event = 0;
    bool copied = false;
    if (said == 1 && recorded == 1 && check(cuMemAllocHost((void**)&host, BYTES))) {
        memset(host, 0, BYTES);
        if (!control("no_wait")) check(cuStreamWaitEvent(stream, event, 0));
        check(cuMemcpyDtoHAsync(host, legacy, BYTES, stream));
        if (!finished(stream)) {
            expect(false, "parent: the copy after the child's event finished within 10 s");
            return finish();
        }
        after_event = count_words(host, 0xc0ffee);
        copied = true;
        check(cuMemFreeHost(host));
    }
    int status = -1;
    waitpid(pid, &status, 0);
    printf("parent: the child recorded the event: %s\n", yes(said == 1 && recorded == 1));
    expect(said == 1 && recorded == 1, "the child recorded the event after its late write");
    if (copied) expect_all("parent: the child's words in the legacy IPC memory, after its event", after_event, N);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    printf("parent: the child exited with %d\n", code);
    expect(code == 0, "the child's checks held");
    close(ends[0]);

    // The child's writes, now that it has exited.
    expect_all("parent: the child's words in the legacy IPC memory, after it exited", count_value(legacy, 0xc0ffee), N);
    expect_all("parent: the child's words in the pool's memory", count_value(pooled, 0xd00d), N);
    delay(stream);
    check(cuMemFreeAsync(pooled, stream));
    check(cuStreamSynchronize(stream));
    expect_idle(stream, "the parent's free done after cuStreamSynchronize");
    check(cuMemPoolDestroy(pool));
    close(pool_fd);
    check(cuEventDestroy(event));
    check(cuMemFree(legacy));
    check(cuStreamDestroy(stream));
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
