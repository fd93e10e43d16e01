/* The constants probe (see probe.h), and the C spellings of names.rs: as a C program sees the
   header (with CUDA_API_PER_THREAD_DEFAULT_STREAM under the per-thread-default-stream feature). */
#include <string.h>
#include "probe.h"

typedef struct { const char *name; cdsys_u64 bits, negative; } cdsys_constant;

#define K(rust, name, kind, value, c) { name, (cdsys_u64)(CDSYS_U c), (CDSYS_U c) < 0 },
#define P(rust, name, kind, value, c) { name, (cdsys_u64)(uintptr_t)(CDSYS_U c), 0 },
/* A function, not a static table: a pointer cast is no constant expression. Fills `out` when
   not null; returns the number of constants. */
cdsys_u64 cuda_driver_workspace_constants(cdsys_constant *out) {
    const cdsys_constant t[] = {
#include "constants.inc"
        {0}};
    if (out)
        memcpy(out, t, sizeof t - sizeof *t);
    return sizeof t / sizeof *t - 1;
}
static const cdsys_typedef name_typedefs[] = {
#include "layout_name_typedefs.inc"
    {0}};

CDSYS_TABLE(layout_name_typedefs, name_typedefs);
