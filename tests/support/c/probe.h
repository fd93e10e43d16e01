/* The generic C half of the layout and constants probes. tests/support/layout.rs writes their
   tables into OUT_DIR, one macro call per entry (R a record, F a field, T a typedef, K and P an
   integer and a pointer constant); layout_probe.c and constants_probe.c expand
   them into arrays of what the C compiler says, and tests/layout.rs and tests/constants.rs expand
   the same text into what Rust says. The arguments in parentheses that a side does not use are
   the other side's. */
#include <stddef.h>
#include <stdint.h>
#include "cdsys_includes.h" /* the headers the bindings bind, as a C program includes them */

/* 1 signed integer, 2 unsigned integer or bool, 3 floating point, 0 anything else (pointers,
   records, arrays). An enum is its compatible integer type. */
#define CDSYS_CLASS(x) _Generic((x), \
    char: ((char)-1 < 0 ? 1 : 2), signed char: 1, short: 1, int: 1, long: 1, long long: 1, \
    unsigned char: 2, unsigned short: 2, unsigned int: 2, unsigned long: 2, \
    unsigned long long: 2, _Bool: 2, float: 3, double: 3, long double: 3, default: 0)
#define CDSYS_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CDSYS_ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* `(x)` without its parentheses: CDSYS_U (struct X) is struct X. */
#define CDSYS_U(...) __VA_ARGS__

typedef unsigned long long cdsys_u64;
typedef struct { const char *name, *c_type; cdsys_u64 kind, size, align, class_; } cdsys_typedef;
#define T(name, c_name, kind, rust, c_type) \
    { name, c_name, kind, sizeof(CDSYS_U c_type), _Alignof(CDSYS_U c_type), CDSYS_CLASS(*(CDSYS_U c_type *)0) },

/* A table's entries and their number, for the tests (each table ends with a zeroed sentinel, so
   that an empty one is valid C). */
typedef struct { const void *entries; cdsys_u64 len; } cdsys_table;
#define CDSYS_TABLE(name, entries) \
    const cdsys_table cuda_driver_workspace_##name = { entries, sizeof entries / sizeof *entries - 1 }
