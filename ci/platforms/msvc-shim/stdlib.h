/* cargo xtask platforms (x86_64-pc-windows-msvc) and cargo xtask regenerate (its Windows pass)
 * generate bindings without Windows headers (clang -ffreestanding): cuda.h includes <stdlib.h>
 * for size_t only. */
#include <stddef.h>
