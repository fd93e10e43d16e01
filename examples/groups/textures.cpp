// Textures and surfaces, in the manner of NVIDIA's simpleTextureDrv with an image made here: the
// TEXOBJECT and SURFOBJECT groups, and the deprecated references as far as the driver accepts
// them. A texture object over a 2D array and one over pitched linear memory, each sampled by a
// kernel at every texel, with the descriptors read back; a surface object a kernel paints,
// read back from its array; then a module's texture and surface references (hand-written PTX):
// every cuTexRefSet*, each value read back with its cuTexRefGet*, the array bound, a kernel
// reading the texture and writing the surface through them; and a texture reference made and
// destroyed on its own. What the driver answers for a deprecated call is printed; what it set
// must read back, and where the driver gives the module and its references, the kernel through
// them must run and do its work. Rust program: textures.rs.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "common.h"

static const int W = 64, H = 64;

// The image: texel (x, y) is 1 + x + 100 y (exact in float).
static float texel(int x, int y) { return (float)(1 + x + 100 * y); }

// How many of the W x H values of `out` are `scale` times the image's.
static size_t image_matches(const float* out, float scale) {
    size_t same = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) same += out[y * W + x] == scale * texel(x, y);
    return same;
}

int main(int argc, char** argv) {
    if (!check(cuInit(0))) return 1;
    CUdevice device = 0;
    CUcontext context = NULL;
    if (!check(cuDeviceGet(&device, 0))) return finish();
    if (!check(cuDevicePrimaryCtxRetain(&context, device))) return finish();
    check(cuCtxSetCurrent(context));
    CUmodule module = load_module(argc, argv, "textures.ptx");
    CUfunction sample = NULL, paint = NULL;
    if (!check(cuModuleGetFunction(&sample, module, "sample"))) return finish();
    if (!check(cuModuleGetFunction(&paint, module, "paint"))) return finish();

    const size_t bytes = W * H * sizeof(float);
    float* image = (float*)malloc(bytes);
    float* back = (float*)malloc(bytes);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) image[y * W + x] = texel(x, y);
    CUDA_ARRAY3D_DESCRIPTOR desc;
    memset(&desc, 0, sizeof desc);
    desc.Width = W;
    desc.Height = H;
    desc.Format = CU_AD_FORMAT_FLOAT;
    desc.NumChannels = 1;
    desc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray array = NULL, surface_array = NULL;
    if (!check(cuArray3DCreate(&array, &desc))) return finish();
    if (!check(cuArray3DCreate(&surface_array, &desc))) return finish();
    CUDA_MEMCPY2D copy;
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = image;
    copy.srcPitch = W * sizeof(float);
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
    copy.WidthInBytes = W * sizeof(float);
    copy.Height = H;
    check(cuMemcpy2D(&copy));
    CUdeviceptr out = 0, pitched = 0;
    size_t pitch = 0;
    check(cuMemAlloc(&out, bytes));
    check(cuMemAllocPitch(&pitched, &pitch, W * sizeof(float), H, sizeof(float)));
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = pitched;
    copy.dstPitch = pitch;
    check(cuMemcpy2D(&copy));
    int w = W, h = H;

    // A texture object over the array: point sampling, unnormalised coordinates, clamped.
    CUDA_RESOURCE_DESC resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = array;
    CUDA_TEXTURE_DESC sampling;
    memset(&sampling, 0, sizeof sampling);
    sampling.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
    sampling.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    sampling.filterMode = CU_TR_FILTER_MODE_POINT;
    sampling.maxAnisotropy = 1;
    CUDA_RESOURCE_VIEW_DESC view;
    memset(&view, 0, sizeof view);
    view.format = CU_RES_VIEW_FORMAT_FLOAT_1X32;
    view.width = W;
    view.height = H;
    CUtexObject texture = 0;
    if (!check(cuTexObjectCreate(&texture, &resource, &sampling, &view))) return finish();
    CUDA_RESOURCE_DESC resource_back;
    CUDA_TEXTURE_DESC sampling_back;
    CUDA_RESOURCE_VIEW_DESC view_back;
    memset(&resource_back, 0, sizeof resource_back);
    memset(&sampling_back, 0, sizeof sampling_back);
    memset(&view_back, 0, sizeof view_back);
    check(cuTexObjectGetResourceDesc(&resource_back, texture));
    check(cuTexObjectGetTextureDesc(&sampling_back, texture));
    check(cuTexObjectGetResourceViewDesc(&view_back, texture));
    printf("texture object: resource type %d, same array %s; address modes %d %d, filter %d; view format %d, %zu x %zu\n",
           (int)resource_back.resType, resource_back.res.array.hArray == array ? "yes" : "no",
           (int)sampling_back.addressMode[0], (int)sampling_back.addressMode[1], (int)sampling_back.filterMode,
           (int)view_back.format, view_back.width, view_back.height);
    expect(resource_back.res.array.hArray == array && view_back.width == (size_t)W,
           "the texture object's descriptors read back");
    void* sample_args[] = {&texture, &out, &w, &h};
    check(cuLaunchKernel(sample, W / 16, H / 16, 1, 16, 16, 1, 0, NULL, sample_args, NULL));
    memset(back, 0, bytes);
    check(cuMemcpyDtoH(back, out, bytes));
    expect_all("a kernel sampled the array's texture object at every texel", image_matches(back, 1.0f), W * H);
    check(cuTexObjectDestroy(texture));

    // A texture object over pitched linear memory.
    memset(&resource, 0, sizeof resource);
    resource.resType = CU_RESOURCE_TYPE_PITCH2D;
    resource.res.pitch2D.devPtr = pitched;
    resource.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    resource.res.pitch2D.numChannels = 1;
    resource.res.pitch2D.width = W;
    resource.res.pitch2D.height = H;
    resource.res.pitch2D.pitchInBytes = pitch;
    if (check(cuTexObjectCreate(&texture, &resource, &sampling, NULL))) {
        check(cuMemsetD32(out, 0, W * H));
        check(cuLaunchKernel(sample, W / 16, H / 16, 1, 16, 16, 1, 0, NULL, sample_args, NULL));
        memset(back, 0, bytes);
        check(cuMemcpyDtoH(back, out, bytes));
        expect_all("a kernel sampled the pitched memory's texture object", image_matches(back, 1.0f), W * H);
        check(cuTexObjectDestroy(texture));
    }

    // A surface object a kernel paints.
    memset(&resource, 0, sizeof resource);
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = surface_array;
    CUsurfObject surface = 0;
    if (!check(cuSurfObjectCreate(&surface, &resource))) return finish();
    memset(&resource_back, 0, sizeof resource_back);
    check(cuSurfObjectGetResourceDesc(&resource_back, surface));
    printf("surface object: resource type %d, same array %s\n", (int)resource_back.resType,
           resource_back.res.array.hArray == surface_array ? "yes" : "no");
    void* paint_args[] = {&surface, &w, &h};
    check(cuLaunchKernel(paint, W / 16, H / 16, 1, 16, 16, 1, 0, NULL, paint_args, NULL));
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = surface_array;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = back;
    copy.dstPitch = W * sizeof(float);
    copy.WidthInBytes = W * sizeof(float);
    copy.Height = H;
    memset(back, 0, bytes);
    check(cuMemcpy2D(&copy));
    expect_all("a kernel painted every texel of the surface object", image_matches(back, 2.0f), W * H);
    check(cuSurfObjectDestroy(surface));

    // The deprecated references of a module, as far as the driver accepts them.
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argc > 1 ? argv[1] : "examples/kernels", "texture_references.ptx");
    CUmodule references = NULL;
    CUresult code = cuModuleLoad(&references, path);
    printf("module with references: %s\n", result_name(code));
    if (code == CUDA_SUCCESS) {
        CUtexref tex_ref = NULL;
        CUsurfref surf_ref = NULL;
        printf("cuModuleGetTexRef: %s\n", result_name(cuModuleGetTexRef(&tex_ref, references, "tex_ref")));
        printf("cuModuleGetSurfRef: %s\n", result_name(cuModuleGetSurfRef(&surf_ref, references, "surf_ref")));
        if (tex_ref != NULL) {
            size_t offset = 0;
            CUDA_ARRAY_DESCRIPTOR flat;
            memset(&flat, 0, sizeof flat);
            flat.Width = W;
            flat.Height = H;
            flat.Format = CU_AD_FORMAT_FLOAT;
            flat.NumChannels = 1;
            float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
            CUmipmappedArray mipmapped = NULL;
            CUDA_ARRAY3D_DESCRIPTOR mip_desc = desc;
            mip_desc.Flags = 0;
            check(cuMipmappedArrayCreate(&mipmapped, &mip_desc, 2));
            // Each value set read back; the format, the filter mode and the flags set twice, first
            // to a value the kernel does not read with, so that each call changes what is read back.
            const CUarray_format formats[2] = {CU_AD_FORMAT_UNSIGNED_INT16, CU_AD_FORMAT_FLOAT};
            const int channel_counts[2] = {2, 1};
            for (int i = 0; i < 2; i++) {
                printf("cuTexRefSetFormat: %s\n", result_name(cuTexRefSetFormat(tex_ref, formats[i], channel_counts[i])));
                CUarray_format format = CU_AD_FORMAT_UNSIGNED_INT8;
                int channels = 0;
                code = cuTexRefGetFormat(&format, &channels, tex_ref);
                printf("cuTexRefGetFormat: %s, format %d, %d channel(s)\n", result_name(code), (int)format, channels);
                expect(format == formats[i] && channels == channel_counts[i], "cuTexRefGetFormat: the format set");
            }
            // WRAP, then CLAMP, each read back: the default may be either.
            const CUaddress_mode modes[2] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP};
            for (CUaddress_mode set : modes) {
                printf("cuTexRefSetAddressMode: %s\n", result_name(cuTexRefSetAddressMode(tex_ref, 0, set)));
                CUaddress_mode mode = CU_TR_ADDRESS_MODE_MIRROR;
                code = cuTexRefGetAddressMode(&mode, tex_ref, 0);
                printf("cuTexRefGetAddressMode: %s, %d\n", result_name(code), (int)mode);
                expect(mode == set, "cuTexRefGetAddressMode: the mode set");
            }
            const CUfilter_mode filters[2] = {CU_TR_FILTER_MODE_LINEAR, CU_TR_FILTER_MODE_POINT};
            for (CUfilter_mode filter : filters) {
                printf("cuTexRefSetFilterMode: %s\n", result_name(cuTexRefSetFilterMode(tex_ref, filter)));
                CUfilter_mode filter_back = CU_TR_FILTER_MODE_LINEAR;
                code = cuTexRefGetFilterMode(&filter_back, tex_ref);
                printf("cuTexRefGetFilterMode: %s, %d\n", result_name(code), (int)filter_back);
                expect(filter_back == filter, "cuTexRefGetFilterMode: the mode set");
            }
            const unsigned int flag_sets[2] = {CU_TRSF_NORMALIZED_COORDINATES, 0};
            for (unsigned int flags : flag_sets) {
                printf("cuTexRefSetFlags: %s\n", result_name(cuTexRefSetFlags(tex_ref, flags)));
                unsigned int flags_back = 99;
                code = cuTexRefGetFlags(&flags_back, tex_ref);
                printf("cuTexRefGetFlags: %s, %u\n", result_name(code), flags_back);
                expect(flags_back == flags, "cuTexRefGetFlags: the flags set");
            }
            printf("cuTexRefSetBorderColor: %s\n", result_name(cuTexRefSetBorderColor(tex_ref, border)));
            float color[4] = {0, 0, 0, 0};
            code = cuTexRefGetBorderColor(color, tex_ref);
            printf("cuTexRefGetBorderColor: %s, %.2f %.2f %.2f %.2f\n", result_name(code), color[0], color[1], color[2],
                   color[3]);
            expect(memcmp(color, border, sizeof color) == 0, "cuTexRefGetBorderColor: the color set");
            printf("cuTexRefSetMaxAnisotropy: %s\n", result_name(cuTexRefSetMaxAnisotropy(tex_ref, 4)));
            int anisotropy = 0;
            code = cuTexRefGetMaxAnisotropy(&anisotropy, tex_ref);
            printf("cuTexRefGetMaxAnisotropy: %s, %d\n", result_name(code), anisotropy);
            expect(anisotropy == 4, "cuTexRefGetMaxAnisotropy: the value set");
            printf("cuTexRefSetMipmapFilterMode: %s\n",
                   result_name(cuTexRefSetMipmapFilterMode(tex_ref, CU_TR_FILTER_MODE_LINEAR)));
            CUfilter_mode filter = CU_TR_FILTER_MODE_POINT;
            code = cuTexRefGetMipmapFilterMode(&filter, tex_ref);
            printf("cuTexRefGetMipmapFilterMode: %s, %d\n", result_name(code), (int)filter);
            expect(filter == CU_TR_FILTER_MODE_LINEAR, "cuTexRefGetMipmapFilterMode: the mode set");
            printf("cuTexRefSetMipmapLevelBias: %s\n", result_name(cuTexRefSetMipmapLevelBias(tex_ref, 0.5f)));
            float bias = -1.0f, low = -1.0f, high = -1.0f;
            code = cuTexRefGetMipmapLevelBias(&bias, tex_ref);
            printf("cuTexRefGetMipmapLevelBias: %s, %.2f\n", result_name(code), bias);
            expect(bias == 0.5f, "cuTexRefGetMipmapLevelBias: the bias set");
            printf("cuTexRefSetMipmapLevelClamp: %s\n", result_name(cuTexRefSetMipmapLevelClamp(tex_ref, 0.25f, 1.5f)));
            code = cuTexRefGetMipmapLevelClamp(&low, &high, tex_ref);
            printf("cuTexRefGetMipmapLevelClamp: %s, %.2f %.2f\n", result_name(code), low, high);
            expect(low == 0.25f && high == 1.5f, "cuTexRefGetMipmapLevelClamp: the levels set");
            printf("cuTexRefSetAddress: %s\n", result_name(cuTexRefSetAddress(&offset, tex_ref, out, bytes)));
            CUdeviceptr address = 0;
            code = cuTexRefGetAddress(&address, tex_ref);
            printf("cuTexRefGetAddress: %s, the buffer %s\n", result_name(code),
                   address == out ? "yes" : "no");
            expect(address == out, "cuTexRefGetAddress: the buffer bound");
            printf("cuTexRefSetAddress2D: %s\n", result_name(cuTexRefSetAddress2D(tex_ref, &flat, pitched, pitch)));
            address = 0;
            code = cuTexRefGetAddress(&address, tex_ref);
            printf("cuTexRefGetAddress: %s, the pitched memory %s\n", result_name(code),
                   address == pitched ? "yes" : "no");
            expect(address == pitched, "cuTexRefGetAddress: the pitched memory bound");
            printf("cuTexRefSetMipmappedArray: %s\n",
                   result_name(cuTexRefSetMipmappedArray(tex_ref, mipmapped, CU_TRSA_OVERRIDE_FORMAT)));
            CUmipmappedArray mip_back = NULL;
            code = cuTexRefGetMipmappedArray(&mip_back, tex_ref);
            printf("cuTexRefGetMipmappedArray: %s, the mipmapped array %s\n", result_name(code), mip_back == mipmapped ? "yes" : "no");
            expect(mip_back == mipmapped, "cuTexRefGetMipmappedArray: the mipmapped array bound");
            printf("cuTexRefSetArray: %s\n", result_name(cuTexRefSetArray(tex_ref, array, CU_TRSA_OVERRIDE_FORMAT)));
            CUarray array_back = NULL;
            code = cuTexRefGetArray(&array_back, tex_ref);
            printf("cuTexRefGetArray: %s, the array %s\n", result_name(code),
                   array_back == array ? "yes" : "no");
            expect(array_back == array, "cuTexRefGetArray: the array bound");
            check(cuMipmappedArrayDestroy(mipmapped));
        }
        if (surf_ref != NULL) {
            printf("cuSurfRefSetArray: %s\n", result_name(cuSurfRefSetArray(surf_ref, surface_array, 0)));
            CUarray array_back = NULL;
            code = cuSurfRefGetArray(&array_back, surf_ref);
            printf("cuSurfRefGetArray: %s, the array %s\n", result_name(code),
                   array_back == surface_array ? "yes" : "no");
            expect(array_back == surface_array, "cuSurfRefGetArray: the array bound");
        }
        CUfunction through = NULL;
        bool found = false;
        if (tex_ref == NULL || surf_ref == NULL) {
            printf("a kernel through the references: not tested (a reference is missing)\n");
        } else {
            code = cuModuleGetFunction(&through, references, "through_references");
            printf("cuModuleGetFunction(through_references): %s\n", result_name(code));
            expect(code == CUDA_SUCCESS, "the kernel of the module with references found");
            found = code == CUDA_SUCCESS;
        }
        if (found) {
            check(cuMemsetD32(out, 0, W * H));
            void* args[] = {&out};
            code = cuLaunchKernel(through, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
            if (code == CUDA_SUCCESS) code = cuCtxSynchronize();
            float first = 0.0f;
            check(cuMemcpyDtoH(&first, out, sizeof first));
            memset(back, 0, bytes);
            check(cuMemcpy2D(&copy));
            float painted = back[0];
            printf("a kernel through the references: %s; texel (0, 0) %.1f, surface (0, 0) %.1f\n",
                   result_name(code), first, painted);
            expect(code == CUDA_SUCCESS && first == texel(0, 0) && painted == 1.0f,
                   "the kernel read and wrote through the references");
        }
        check(cuModuleUnload(references));
    }
    CUtexref own = NULL;
    code = cuTexRefCreate(&own);
    printf("cuTexRefCreate: %s\n", result_name(code));
    if (code == CUDA_SUCCESS) printf("cuTexRefDestroy: %s\n", result_name(cuTexRefDestroy(own)));

    check(cuMemFree(pitched));
    check(cuMemFree(out));
    check(cuArrayDestroy(surface_array));
    check(cuArrayDestroy(array));
    check(cuModuleUnload(module));
    free(back);
    free(image);
    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
