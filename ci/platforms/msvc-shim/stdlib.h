/* ci/platforms.sh generates the bindings for x86_64-pc-windows-msvc without MSVC's headers
 * (clang -ffreestanding): cuda.h includes <stdlib.h> for size_t only. */
#include <stddef.h>
