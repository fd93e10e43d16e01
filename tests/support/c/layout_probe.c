/* The layout probe (see probe.h), compiled as the bindings were generated: the legacy `_v1`
   types exist only with these. */
#define __CUDA_API_VERSION_INTERNAL 1
#define __CUDA_API_VERSION_INTERNAL_ODR 1
#include "probe.h"

typedef struct { const char *name, *c_type; cdsys_u64 kind, size, align; } cdsys_record;
typedef struct { const char *record, *path, *c_path; cdsys_u64 offset, size, align, class_; } cdsys_field;

#define R(name, c_type, kind, rust, size, align) \
    { name, c_type, kind, CDSYS_U size, CDSYS_U align },
static const cdsys_record records[] = {
#include "layout_records.inc"
    {0}};
#define F(record, path, c_path, rust, rust_path, rust_type, rust_type_name, offset, size, align, \
          c_class) \
    { record, path, c_path, CDSYS_U offset, CDSYS_U size, CDSYS_U align, CDSYS_U c_class },
static const cdsys_field fields[] = {
#include "layout_fields.inc"
    {0}};
static const cdsys_typedef typedefs[] = {
#include "layout_typedefs.inc"
    {0}};

CDSYS_TABLE(layout_records, records);
CDSYS_TABLE(layout_fields, fields);
CDSYS_TABLE(layout_typedefs, typedefs);
